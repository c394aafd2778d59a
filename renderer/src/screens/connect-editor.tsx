import { type FormEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { KEY_LIMITS } from '../../../contract/limits.ts';
import type { Access, ApiKey, Connection } from '../api.ts';
import type { ScreenProps } from '../app.tsx';
import { AccessRadios, ErrorNote, PageHeader } from '../components.tsx';
import { useConnections } from '../data/connections.ts';
import { useCreateKey, useKeys } from '../data/keys.ts';
import { EDITORS, type EditorId, type EditorSetup, editorLabel, editorSetup, isEditorId, type Service, type Snippet } from '../editors.ts';
import { asApiError } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { Link } from '../router.tsx';
import { When } from '../time.tsx';
import './connect-editor.css';

/** How often the screen asks whether the editor has connected, while it is open and visible. */
const WATCH_MS = 3000;

type Mode = 'oauth' | 'key';

/** A key made on this screen, with its secret: kept in memory only, until Done or leaving the screen. */
interface CreatedKey {
  key: ApiKey;
  secret: string;
}

export function ConnectEditorScreen({ workspace, session }: ScreenProps) {
  const [editor, setEditor] = useState<EditorId>(() => {
    const asked = new URLSearchParams(location.search).get('editor');
    return isEditorId(asked) ? asked : 'claude-code';
  });
  const [mode, setMode] = useState<Mode>('oauth');
  const [created, setCreated] = useState<CreatedKey>();
  const watch = useConnectionWatch(workspace.id);

  // The chosen editor stays in the address (never the key), so a reload or a shared link opens it.
  useEffect(() => {
    const next = `/connect?editor=${editor}`;
    if (location.pathname + location.search !== next) history.replaceState(history.state, '', next);
  }, [editor]);

  const service: Service = { apiUrl: session.apiUrl, mcpUrl: session.mcpUrl };
  const label = editorLabel(editor);

  return (
    <div className="connect-screen">
      <PageHeader title="Connect an AI editor">
        Let the assistant in your editor read {workspace.name} and, if you allow it, post status reports, through Statusdesk’s MCP server at{' '}
        <code>{session.mcpUrl}</code>.
      </PageHeader>

      <EditorTabs value={editor} onChange={setEditor} />

      <div role="tabpanel" id="editor-panel" aria-labelledby={`editor-tab-${editor}`} className="card editor-panel">
        <ModeChoice value={mode} onChange={setMode} editor={label} />

        {mode === 'oauth' ? (
          <SetupView setup={editorSetup(editor, service, { kind: 'oauth' })} oauthWorkspace={workspace.name} />
        ) : created ? (
          <>
            <section className="key-made" aria-labelledby="key-made-heading">
              <h2 id="key-made-heading">Key “{created.key.name}” created</h2>
              <p>
                Its secret is in the setup below, shown this once: set up {label} now. Statusdesk keeps only its hash; anyone holding it can use{' '}
                {workspace.name} with the key’s access.
              </p>
              <button type="button" className="button button-ghost button-small" onClick={() => setCreated(undefined)}>
                Done, forget the secret
              </button>
            </section>
            <SetupView setup={editorSetup(editor, service, { kind: 'key', secret: created.secret })} />
          </>
        ) : (
          <KeyForm workspaceId={workspace.id} editor={label} onCreated={setCreated} />
        )}

        <ConnectionStatus editor={label} mode={mode} created={created?.key} watch={watch} />
      </div>

      <p className="small muted connect-more">
        Every connection and key can be revoked in Settings: <Link to="/settings/integrations/connected-apps">Connected apps</Link>,{' '}
        <Link to="/settings/general/api-keys">API Keys</Link>. What an editor changes is in the <Link to="/audit">audit log</Link>.
      </p>
    </div>
  );
}

/** The four editors as tabs: arrow keys, Home and End move between them (and choose), Tab leaves. */
function EditorTabs({ value, onChange }: { value: EditorId; onChange(editor: EditorId): void }) {
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const move = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const last = EDITORS.length - 1;
    const to = { ArrowRight: index === last ? 0 : index + 1, ArrowLeft: index === 0 ? last : index - 1, Home: 0, End: last }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    onChange(EDITORS[to]!.id);
    tabs.current[to]?.focus();
  };
  return (
    <div role="tablist" aria-label="Editor" className="editor-tabs">
      {EDITORS.map((editor, index) => (
        <button
          key={editor.id}
          ref={(element) => {
            tabs.current[index] = element;
          }}
          type="button"
          role="tab"
          id={`editor-tab-${editor.id}`}
          aria-selected={editor.id === value}
          aria-controls="editor-panel"
          tabIndex={editor.id === value ? 0 : -1}
          className="editor-tab"
          onClick={() => onChange(editor.id)}
          onKeyDown={(event) => move(event, index)}
        >
          {editor.label}
        </button>
      ))}
    </div>
  );
}

function ModeChoice({ value, onChange, editor }: { value: Mode; onChange(mode: Mode): void; editor: string }) {
  const id = useId();
  const option = (mode: Mode, label: string, hint: string) => (
    <div className="radio">
      <input
        type="radio"
        id={`${id}-${mode}`}
        name="connect-mode"
        value={mode}
        checked={value === mode}
        aria-describedby={`${id}-${mode}-hint`}
        onChange={() => onChange(mode)}
      />
      <label htmlFor={`${id}-${mode}`}>{label}</label>
      <small id={`${id}-${mode}-hint`}>{hint}</small>
    </div>
  );
  return (
    <fieldset className="radios mode-choice">
      <legend>How {editor} signs in</legend>
      {option(
        'oauth',
        'OAuth (recommended)',
        'No key to copy: you approve the editor in Statusdesk the first time it connects, and can revoke it under Settings, Integrations, Connected apps.',
      )}
      {option(
        'key',
        'An API key',
        'A new key for this editor, its secret written into the setup. For editors or machines where signing in through the browser is not possible.',
      )}
    </fieldset>
  );
}

/** `oauthWorkspace`: the workspace to choose at consent, for a setup that signs in with OAuth. */
function SetupView({ setup, oauthWorkspace }: { setup: EditorSetup; oauthWorkspace?: string }) {
  const label = editorLabel(setup.editor);
  return (
    <section className="setup" aria-labelledby="setup-heading">
      <h2 id="setup-heading">Set up {label}</h2>
      {setup.installLink ? (
        <div className="install-link">
          <a className="button button-primary" href={setup.installLink.href}>
            <Icon name="external" />
            {setup.installLink.label}
          </a>
          <p className="small muted">
            Opens {label}, which shows the server’s settings and asks before adding it.
            {setup.installLink.carriesSecret ? <strong className="carries-secret"> This link carries the key’s secret.</strong> : null}
          </p>
        </div>
      ) : null}
      <ol className="setup-steps">
        {setup.steps.map((step) => (
          <li key={step.text}>
            <p>{step.text}</p>
            {step.snippet ? <CopyBlock snippet={step.snippet} /> : null}
          </li>
        ))}
      </ol>
      <p className="small muted">
        {oauthWorkspace ? `Choose ${oauthWorkspace} when Statusdesk asks for the workspace. ` : ''}To check it worked: {setup.check}
      </p>
    </section>
  );
}

/** A command or file to copy, with a Copy button; where the clipboard is refused, the text is selected instead. */
function CopyBlock({ snippet }: { snippet: Snippet }) {
  const [copied, setCopied] = useState<'yes' | 'failed'>();
  const text = useRef<HTMLPreElement>(null);
  const captionId = useId();

  // biome-ignore lint/correctness/useExhaustiveDependencies: "Copied" belongs to the text that was copied; another text starts without it
  useEffect(() => setCopied(undefined), [snippet.text]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(snippet.text);
      setCopied('yes');
    } catch {
      // No clipboard (an insecure origin, a refusal): select it so the keyboard can copy it.
      const element = text.current;
      const selection = window.getSelection();
      if (element && selection) {
        const range = document.createRange();
        range.selectNodeContents(element);
        selection.removeAllRanges();
        selection.addRange(range);
      }
      setCopied('failed');
    }
  };

  return (
    <figure className="snippet" aria-labelledby={captionId}>
      <div className="snippet-head">
        <figcaption id={captionId}>{snippet.label}</figcaption>
        <button type="button" className="button button-small" onClick={copy}>
          <Icon name={copied === 'yes' ? 'check' : 'copy'} />
          Copy<span className="visually-hidden"> {snippet.label}</span>
        </button>
      </div>
      <pre ref={text} className={`snippet-text snippet-${snippet.kind}`}>
        <code>{snippet.text}</code>
      </pre>
      <p className="small muted snippet-note" role="status">
        {copied === 'yes' ? 'Copied.' : copied === 'failed' ? 'Copying was refused: the text is selected, press Ctrl+C or ⌘C.' : ''}
      </p>
    </figure>
  );
}

function KeyForm({ workspaceId, editor, onCreated }: { workspaceId: string; editor: string; onCreated(created: CreatedKey): void }) {
  const [name, setName] = useState(editor);
  const [access, setAccess] = useState<Access>('read');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const nameId = useId();
  const errorId = useId();
  const createKey = useCreateKey(workspaceId);

  // A new editor chosen before the key is made: its name is the better default.
  useEffect(() => setName(editor), [editor]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onCreated(await createKey.mutateAsync({ name, scope: access }));
    } catch (caught) {
      setError(asApiError(caught).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="key-form" aria-labelledby="key-form-heading">
      <h2 id="key-form-heading">A key for {editor}</h2>
      <p className="small muted">
        Its secret goes into the setup, shown once. Read only is enough to ask about monitors and pages; Read & write also lets the assistant publish.
      </p>
      <form className="form-row" onSubmit={submit} aria-describedby={error ? errorId : undefined} noValidate>
        <div className="field">
          <label htmlFor={nameId}>Key name</label>
          <input id={nameId} type="text" value={name} maxLength={KEY_LIMITS.nameLength} autoComplete="off" onChange={(event) => setName(event.target.value)} />
        </div>
        <AccessRadios name="connect-key-access" value={access} onChange={setAccess} />
        <div className="form-submit">
          <button type="submit" className="button button-primary" disabled={busy}>
            Create key and show setup
          </button>
        </div>
      </form>
      {error ? <ErrorNote id={errorId}>{error}</ErrorNote> : null}
    </section>
  );
}

interface Watch {
  /** Connections of the workspace that appeared, or were used, since the screen opened; newest first. */
  connections: Connection[];
  keys: ApiKey[];
  error?: string;
}

const newest = (connection: Connection) => connection.lastUsedAt ?? connection.connectedAt;

/**
 * Asks every few seconds for the workspace's connections and keys while the screen is open (and
 * the window visible). What was there when it opened is the baseline: an editor has connected
 * when a connection appears or is used, or when a key made here is used.
 */
function useConnectionWatch(workspaceId: string): Watch {
  const connections = useConnections(workspaceId, WATCH_MS);
  const keys = useKeys(workspaceId, WATCH_MS);
  const [baseline, setBaseline] = useState<Map<string, string | null>>();
  // The first answer since the screen opened is the baseline (one kept from an earlier visit is not).
  const firstAnswer = connections.isFetchedAfterMount ? connections.data?.connections : undefined;
  useEffect(() => {
    if (firstAnswer) setBaseline((known) => known ?? new Map(firstAnswer.map((c) => [c.id, c.lastUsedAt])));
  }, [firstAnswer]);

  const fresh = baseline
    ? (connections.data?.connections ?? [])
        .filter((c) => !baseline.has(c.id) || baseline.get(c.id) !== c.lastUsedAt)
        .sort((a, b) => newest(b).localeCompare(newest(a)))
    : [];
  const error = connections.error ?? keys.error;
  return { connections: fresh, keys: keys.data?.keys ?? [], ...(error ? { error: error.message } : {}) };
}

/** Whether the editor has connected yet, in a live region so that the change is announced. */
function ConnectionStatus({ editor, mode, created, watch }: { editor: string; mode: Mode; created: ApiKey | undefined; watch: Watch }) {
  let message;
  let connected = false;
  if (mode === 'oauth') {
    const connection = watch.connections[0];
    if (connection?.lastUsedAt) {
      connected = true;
      message = (
        <>
          Connected: {connection.clientName}, <When iso={connection.lastUsedAt} />.
        </>
      );
    } else if (connection) {
      message = <>Approved: {connection.clientName}. Waiting for its first call…</>;
    } else {
      message = <>Waiting for {editor} to connect…</>;
    }
  } else if (created) {
    const used = watch.keys.find((key) => key.id === created.id)?.lastUsedAt;
    if (used) {
      connected = true;
      message = (
        <>
          Connected: {editor} with the key “{created.name}”, <When iso={used} />.
        </>
      );
    } else {
      message = (
        <>
          Waiting for {editor} to connect with the key “{created.name}”…
        </>
      );
    }
  } else {
    message = <>Create the key, then set up {editor} with it.</>;
  }
  return (
    <div className={`connection-status${connected ? ' connection-status-on' : ''}`}>
      <p role="status" aria-live="polite">
        {connected ? <Icon name="check" /> : <span className="waiting-dot" aria-hidden="true" />}
        <span>{message}</span>
      </p>
      {watch.error ? <p className="small muted">Could not check just now: {watch.error}</p> : null}
    </div>
  );
}

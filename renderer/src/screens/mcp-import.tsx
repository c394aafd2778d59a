import { type FormEvent, useId, useState } from 'react';
import type { FoundMcpServer } from '../../../contract/dashboard-api.ts';
import type { ApiError } from '../api.ts';
import type { ScreenProps } from '../app.tsx';
import { ErrorNote, Loading, PageHeader } from '../components.tsx';
import { useFoundMcpServers, useImportMcpServers } from '../data/mcp-servers.ts';
import { FieldGroup } from '../forms.tsx';
import { asApiError, loadedOf } from '../hooks.ts';
import { navigate } from '../router.tsx';
import './mcp-import.css';

// Watch your editors' MCP servers: what the AI editors of this machine are set up with, read by
// the service from their files (nothing is run), and a monitor made of each server picked here.

const EDITOR_NAMES: Record<string, string> = {
  'claude-desktop': 'Claude Desktop',
  'claude-code': 'Claude Code',
  cursor: 'Cursor',
  vscode: 'VS Code',
  windsurf: 'Windsurf',
};

const unique = (values: string[]) => [...new Set(values)].join(', ');

/** A server's key in the list and in its pick: its name and the file it was first found in. */
const keyOf = (server: Pick<FoundMcpServer, 'name' | 'file'>) => `${server.file}\n${server.name}`;

/** What a monitor of it would check: the URL, or the command line as written. */
const targetOf = (server: FoundMcpServer) => (server.transport === 'http' ? server.server : [server.server, ...server.args].join(' '));

export function McpImportScreen({ workspace }: ScreenProps) {
  const found = loadedOf(useFoundMcpServers());
  const importServers = useImportMcpServers(workspace.id);
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<ApiError>();
  const errorId = useId();

  const servers = found.state === 'ready' ? found.value.servers : [];
  const chosen = servers.filter((server) => !server.itself && picked.has(keyOf(server)));
  const toggle = (key: string, on: boolean) =>
    setPicked((before) => {
      const next = new Set(before);
      if (on) next.add(key);
      else next.delete(key);
      return next;
    });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (chosen.length === 0) return;
    setError(undefined);
    try {
      await importServers.mutateAsync(chosen.map(({ name, file }) => ({ name, file })));
      navigate('/');
    } catch (caught) {
      setError(asApiError(caught));
    }
  };

  return (
    <>
      <PageHeader title="Watch your editors' MCP servers">
        The MCP servers that Claude Desktop, Claude Code, Cursor, VS Code and Windsurf are set up with on this machine, read from their files. Nothing is run
        until you pick a server: each one picked becomes a monitor of {workspace.name}, checked every 5 minutes.
      </PageHeader>

      {found.state === 'loading' ? <Loading what="your editors' MCP servers" /> : null}
      {found.state === 'error' ? <ErrorNote>{found.error.message}</ErrorNote> : null}

      {found.state === 'ready' && found.value.problems.length > 0 ? (
        <section aria-labelledby="mcp-import-problems" className="card section">
          <h2 id="mcp-import-problems">Files that could not be read</h2>
          <ul className="mcp-import-problems">
            {found.value.problems.map((problem) => (
              <li key={`${problem.file}\n${problem.message}`}>
                <code className="mcp-import-file">{problem.file}</code>: {problem.message}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {found.state === 'ready' && servers.length === 0 ? (
        <div className="empty" role="status">
          <p>
            <strong>No MCP servers were found.</strong>
          </p>
          <p className="muted">
            {found.value.read.length === 0
              ? 'None of the editors has an MCP configuration on this machine.'
              : `The ${found.value.read.length === 1 ? 'file that was read names' : `${found.value.read.length} files that were read name`} no server.`}
          </p>
        </div>
      ) : null}

      {servers.length > 0 ? (
        <form className="card section" onSubmit={submit} aria-describedby={error ? errorId : undefined} noValidate>
          <FieldGroup
            legend={<h2 className="mcp-import-legend">Servers found</h2>}
            hint={`${servers.length} server${servers.length === 1 ? '' : 's'} in ${found.state === 'ready' ? found.value.read.length : 0} file${found.state === 'ready' && found.value.read.length === 1 ? '' : 's'}. Environment values and credentials are not shown.`}
          >
            {(control) => (
              <ul className="mcp-import-list">
                {servers.map((server) => (
                  <FoundServer
                    key={keyOf(server)}
                    server={server}
                    checked={picked.has(keyOf(server))}
                    onChange={(on) => toggle(keyOf(server), on)}
                    describedBy={control['aria-describedby']}
                  />
                ))}
              </ul>
            )}
          </FieldGroup>
          {error ? <ErrorNote id={errorId}>{error.message}</ErrorNote> : null}
          <div className="mcp-import-submit">
            <button type="submit" className="button button-primary" disabled={chosen.length === 0 || importServers.isPending}>
              {importServers.isPending ? 'Creating monitors…' : 'Watch the selected servers'}
            </button>
            <p className="muted small">Picking a stdio server lets Statusdesk run its command at every check.</p>
          </div>
        </form>
      ) : null}
    </>
  );
}

function FoundServer({
  server,
  checked,
  onChange,
  describedBy,
}: {
  server: FoundMcpServer;
  checked: boolean;
  onChange(on: boolean): void;
  describedBy: string | undefined;
}) {
  const id = useId();
  const detailsId = `${id}-details`;
  return (
    <li className={`mcp-import-server${server.itself ? ' row-dim' : ''}`}>
      <div className="mcp-import-check">
        {server.itself ? (
          // Statusdesk's own entry: it watches itself already, so it is shown and not offered.
          <>
            <span className="mcp-import-name">{server.name}</span>
            <span className="badge">This is Statusdesk</span>
          </>
        ) : (
          <>
            <input
              type="checkbox"
              id={id}
              checked={checked}
              onChange={(event) => onChange(event.target.checked)}
              aria-describedby={[detailsId, describedBy].filter(Boolean).join(' ')}
            />
            <label htmlFor={id} className="mcp-import-name">
              {server.name}
            </label>
          </>
        )}
      </div>
      <dl className="mcp-import-details" id={detailsId}>
        <dt>Editor</dt>
        <dd>{unique(server.sources.map((source) => EDITOR_NAMES[source.editor] ?? source.editor))}</dd>
        <dt>Scope</dt>
        <dd>{unique(server.sources.map((source) => source.scope))}</dd>
        <dt>Transport</dt>
        <dd>{server.transport === 'http' ? 'Streamable HTTP' : 'stdio'}</dd>
        <dt>{server.transport === 'http' ? 'URL' : 'Command'}</dt>
        <dd>
          <code className="mcp-import-file">{targetOf(server)}</code>
        </dd>
        <dt>{server.files.length === 1 ? 'File' : 'Files'}</dt>
        <dd>
          {server.files.map((file) => (
            <code key={file} className="mcp-import-file">
              {file}
            </code>
          ))}
        </dd>
      </dl>
      {server.warnings.length > 0 ? (
        <ul className="mcp-import-warnings">
          {server.warnings.map((warning) => (
            <li key={warning} className="note note-warning">
              {warning}
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

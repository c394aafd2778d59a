import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import type { ConfigChange, ConfigPlan } from '../../../contract/dashboard-api.ts';
import { CONFIG_FILE_LIMITS } from '../../../contract/limits.ts';
import type { ScreenProps } from '../app.tsx';
import type { ApiError } from '../api.ts';
import { ErrorNote, PageHeader } from '../components.tsx';
import { useApplyConfig, useExportConfig, usePlanConfig } from '../data/config-file.ts';
import { asApiError } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { saveFile } from '../save-file.ts';
import './import-export.css';

// Settings, General, Import and export: the workspace as the file `statusdesk export` writes, and
// an uploaded file's plan (what `statusdesk apply -f FILE --dry-run` prints) before "Apply" makes
// it. The service reads, plans and applies (server/dashboard/config-routes.ts); this screen holds
// the file's text between the plan and the apply, and refuses a file over the limit unsent.

const LIMIT_KIB = CONFIG_FILE_LIMITS.uploadBytes / 1024;

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

export function ImportExportScreen({ workspace }: ScreenProps) {
  return (
    <>
      <PageHeader title="Import and export">
        The workspace's monitors, status pages and their components as one YAML file: the file <code>statusdesk export</code> writes and{' '}
        <code>statusdesk apply</code> reads. Download it to keep a copy or edit it, and upload a file to make the workspace match it.
      </PageHeader>
      <ExportSection workspaceId={workspace.id} />
      <ImportSection workspaceId={workspace.id} />
    </>
  );
}

function ExportSection({ workspaceId }: { workspaceId: string }) {
  const exportConfig = useExportConfig(workspaceId);
  const [state, setState] = useState<{ busy: boolean; error?: string; saved?: string }>({ busy: false });

  const download = async () => {
    setState({ busy: true });
    try {
      const answer = await exportConfig.mutateAsync();
      saveFile(new Blob([answer.file], { type: 'application/yaml' }), answer.filename);
      setState({
        busy: false,
        saved: `${answer.filename} downloaded: ${plural(answer.monitors, 'monitor', 'monitors')}, ${plural(answer.pages, 'status page', 'status pages')}.`,
      });
    } catch (error) {
      setState({ busy: false, error: asApiError(error).message });
    }
  };

  return (
    <section aria-labelledby="config-export-heading" className="section">
      <h2 id="config-export-heading">Export</h2>
      <div className="card config-card">
        <p>
          Credentials (header values, passwords, tokens) are never shown by the service, so the file holds <code>[redacted]</code> in their place: applying it
          keeps the values stored. Channels, reports, maintenance and keys are not in the file.
        </p>
        <div className="form-actions">
          <button type="button" className="button button-primary" onClick={download} disabled={state.busy}>
            <Icon name="download" />
            {state.busy ? 'Preparing the file…' : 'Download the workspace file'}
          </button>
        </div>
        <p role="status" className={state.saved ? 'note note-done' : 'visually-hidden'}>
          {state.saved}
        </p>
        {state.error ? <ErrorNote>{state.error}</ErrorNote> : null}
      </div>
    </section>
  );
}

/** Where the import stands: choosing a file, its plan shown, or the answer to Apply. */
type Stage = { step: 'choose' } | { step: 'planned'; file: string; name: string; plan: ConfigPlan } | { step: 'applied'; name: string; result: AppliedResult };
type AppliedResult = ConfigPlan & { applied: number; error: string | null; notes: string[] };

function ImportSection({ workspaceId }: { workspaceId: string }) {
  const planConfig = usePlanConfig(workspaceId);
  const applyConfig = useApplyConfig(workspaceId);
  const [stage, setStage] = useState<Stage>({ step: 'choose' });
  const [refusal, setRefusal] = useState<{ message: string; problems: ApiError['violations'] }>();
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const id = useId();

  const refuse = (error: unknown) => {
    const e = asApiError(error);
    setRefusal({ message: e.message, problems: e.violations });
  };

  const check = async (event: FormEvent) => {
    event.preventDefault();
    setRefusal(undefined);
    const chosen = input.current?.files?.[0];
    if (!chosen) {
      setRefusal({ message: 'Choose a file to check.', problems: [] });
      input.current?.focus();
      return;
    }
    // Refused here, unsent: the service would refuse it too, after carrying it.
    if (chosen.size > CONFIG_FILE_LIMITS.uploadBytes) {
      setRefusal({
        message: `${chosen.name} is ${Math.ceil(chosen.size / 1024)} KiB, over the ${LIMIT_KIB} KiB a file may hold here. Apply it with statusdesk apply -f, or in parts.`,
        problems: [],
      });
      input.current?.focus();
      return;
    }
    setBusy(true);
    try {
      const file = await chosen.text();
      const plan = await planConfig.mutateAsync(file);
      setStage({ step: 'planned', file, name: chosen.name, plan });
    } catch (error) {
      refuse(error);
    } finally {
      setBusy(false);
    }
  };

  const apply = async () => {
    if (stage.step !== 'planned') return;
    setRefusal(undefined);
    setBusy(true);
    try {
      const result = await applyConfig.mutateAsync(stage.file);
      setStage({ step: 'applied', name: stage.name, result });
    } catch (error) {
      refuse(error);
    } finally {
      setBusy(false);
    }
  };

  const startOver = () => {
    setStage({ step: 'choose' });
    setRefusal(undefined);
  };

  return (
    <section aria-labelledby="config-import-heading" className="section">
      <h2 id="config-import-heading">Import</h2>
      <div className="card config-card">
        {stage.step === 'choose' ? (
          <form className="config-form" onSubmit={check} noValidate>
            <div className="field">
              <label htmlFor={`${id}-file`}>File to apply</label>
              <input
                ref={input}
                id={`${id}-file`}
                type="file"
                accept=".yaml,.yml,.json,application/yaml,application/json,text/yaml"
                aria-describedby={`${id}-hint`}
                aria-invalid={refusal ? true : undefined}
                onChange={() => setRefusal(undefined)}
              />
              <p id={`${id}-hint`} className="field-hint">
                YAML or JSON, at most {LIMIT_KIB} KiB. Nothing changes yet: the next step shows what the file would change.
              </p>
            </div>
            <div className="form-actions">
              <button type="submit" className="button button-primary" disabled={busy}>
                {busy ? 'Checking…' : 'Check the file'}
              </button>
            </div>
          </form>
        ) : null}
        {refusal ? <Refusal refusal={refusal} /> : null}
        {stage.step === 'planned' ? <PlanView name={stage.name} plan={stage.plan} busy={busy} onApply={apply} onCancel={startOver} /> : null}
        {stage.step === 'applied' ? <AppliedView name={stage.name} result={stage.result} onDone={startOver} /> : null}
      </div>
    </section>
  );
}

/** A refused file: the service's sentence, and each problem at its place in the file. */
function Refusal({ refusal }: { refusal: { message: string; problems: ApiError['violations'] } }) {
  // The service's sentences start in lower case, as its command-line messages do.
  const message = refusal.message.charAt(0).toUpperCase() + refusal.message.slice(1);
  if (refusal.problems.length === 0) return <ErrorNote>{message}</ErrorNote>;
  return (
    <div className="note note-error config-problems" role="alert">
      <p>{message}:</p>
      <ul>
        {refusal.problems.map((p) => (
          <li key={`${p.field} ${p.rule}`}>
            <code>{p.field}</code>: {p.rule}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A heading that takes the focus when it appears: the button that led to it is gone, and the focus with it. */
function useFocusOnShow() {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return heading;
}

const ACTION_WORDS = { create: 'Add', update: 'Change', delete: 'Remove', unchanged: 'Same' } as const;
const KIND_WORDS = { monitor: 'monitor', page: 'status page', component: 'component', maintenance: 'maintenance window' } as const;

/** The counts of a plan. Removals come only of pruning, which the dashboard does not do: named only if there are any. */
function summaryText(summary: ConfigPlan['summary']) {
  const removals = summary.delete > 0 ? `, ${summary.delete} to remove` : '';
  return `${summary.create} to add, ${summary.update} to change${removals}, ${summary.unchanged} unchanged`;
}

/** One line of a plan: what, and for a change each field's old and new value. */
function ChangeItem({ change }: { change: ConfigChange }) {
  const subject = change.kind === 'component' ? `${change.name} on page ${change.page}` : change.name;
  return (
    <li className={`config-change config-change-${change.action}`}>
      <span className="config-change-head">
        <span className={`config-action config-action-${change.action}`}>{ACTION_WORDS[change.action]}</span>
        <span>
          {KIND_WORDS[change.kind]} <strong>{subject}</strong>
          {change.type && change.action !== 'update' ? ` (${change.type})` : ''}
        </span>
        {change.outcome ? <span className={`config-outcome config-outcome-${change.outcome.replace(' ', '-')}`}>{change.outcome}</span> : null}
      </span>
      {change.fields && change.fields.length > 0 ? (
        <ul className="config-fields" aria-label={`Fields of ${subject}`}>
          {change.fields.map((f) => (
            <li key={f.field}>
              <code>{f.field}</code>:{' '}
              {f.secret ? (
                'secret values, sent again (the service never shows them)'
              ) : (
                <>
                  <span className="config-from">{f.from}</span> → <span className="config-to">{f.to}</span>
                </>
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

function PlanView({ name, plan, busy, onApply, onCancel }: { name: string; plan: ConfigPlan; busy: boolean; onApply: () => void; onCancel: () => void }) {
  const changes = plan.changes.filter((c) => c.action !== 'unchanged');
  return (
    <div className="config-plan">
      <h3 ref={useFocusOnShow()} tabIndex={-1}>
        The plan of {name}
      </h3>
      <p className="config-summary" role="status">
        {summaryText(plan.summary)}. Nothing has changed yet.
      </p>
      {changes.length > 0 ? (
        <ul className="config-changes" aria-label="Changes">
          {changes.map((change) => (
            <ChangeItem key={`${change.action} ${change.kind} ${change.page ?? ''} ${change.name}`} change={change} />
          ))}
        </ul>
      ) : (
        <p>The workspace already matches this file.</p>
      )}
      {plan.kept > 0 ? (
        <p className="small muted">
          {plural(plan.kept, 'monitor or page', 'monitors and pages')} of the workspace {plan.kept === 1 ? 'is' : 'are'} not in the file and{' '}
          {plan.kept === 1 ? 'is' : 'are'} kept: the dashboard deletes nothing the file leaves out (<code>statusdesk apply --prune</code> does).
        </p>
      ) : null}
      <div className="form-actions">
        {changes.length > 0 ? (
          <button type="button" className="button button-primary" onClick={onApply} disabled={busy}>
            {busy ? 'Applying…' : `Apply ${plural(changes.length, 'change', 'changes')}`}
          </button>
        ) : null}
        <button type="button" className="button" onClick={onCancel} disabled={busy}>
          {changes.length > 0 ? 'Cancel' : 'Choose another file'}
        </button>
      </div>
    </div>
  );
}

function AppliedView({ name, result, onDone }: { name: string; result: AppliedResult; onDone: () => void }) {
  const changes = result.changes.filter((c) => c.action !== 'unchanged');
  const made = result.changes.filter((c) => c.outcome !== undefined).length;
  return (
    <div className="config-plan">
      <h3 ref={useFocusOnShow()} tabIndex={-1}>
        {result.error === null ? `${name} applied` : `${name} applied in part`}
      </h3>
      <p className={result.error === null ? 'note note-done' : 'note note-warning'} role="status">
        {result.error === null
          ? `${plural(result.applied, 'change', 'changes')} made.`
          : `Stopped at a refusal: ${result.applied} of ${made} changes made. The service said: ${result.error}`}
      </p>
      {result.notes.map((note) => (
        <p key={note} className="note config-shown-once">
          {note}
        </p>
      ))}
      {changes.length > 0 ? (
        <ul className="config-changes" aria-label="Changes">
          {changes.map((change) => (
            <ChangeItem key={`${change.action} ${change.kind} ${change.page ?? ''} ${change.name}`} change={change} />
          ))}
        </ul>
      ) : null}
      <div className="form-actions">
        <button type="button" className="button" onClick={onDone}>
          Apply another file
        </button>
      </div>
    </div>
  );
}

import { type FormEvent, useId, useRef, useState } from 'react';
import type { PageComponent } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import { type StatusReport, StatusReportStatus } from '../../../proto/gen/status_report/v1/status_report_pb.js';
import type { ApiError } from '../api.ts';
import { ConfirmDialog, ErrorNote, Loading } from '../components.tsx';
import { Field, FormProblems, matchViolations, useFocusOnRefusal } from '../forms.tsx';
import { asApiError, useConfirmedAction, useResource } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { When } from '../time.tsx';
import { ComponentChecklist, componentNames, FormActions, isoOf, NotifyChoice, type PageSectionProps, type PublishedNote, publishedNote, PublishedNoteLine } from './page-form-parts.tsx';

export const REPORT_STATUS_LABELS: Record<StatusReportStatus, string> = {
  [StatusReportStatus.UNSPECIFIED]: 'Unknown',
  [StatusReportStatus.INVESTIGATING]: 'Investigating',
  [StatusReportStatus.IDENTIFIED]: 'Identified',
  [StatusReportStatus.MONITORING]: 'Monitoring',
  [StatusReportStatus.RESOLVED]: 'Resolved',
};

/** The statuses an open incident moves through; resolving has its own action. */
const OPEN_STATUSES = [StatusReportStatus.INVESTIGATING, StatusReportStatus.IDENTIFIED, StatusReportStatus.MONITORING] as const;


/** Open reports first (newest first), then resolved ones (latest resolved first). */
function inListOrder(reports: StatusReport[]): StatusReport[] {
  const open = reports.filter((r) => !r.resolved).sort((a, b) => (isoOf(b.createdAt) ?? '').localeCompare(isoOf(a.createdAt) ?? ''));
  const resolved = reports.filter((r) => r.resolved).sort((a, b) => (isoOf(b.resolvedAt) ?? '').localeCompare(isoOf(a.resolvedAt) ?? ''));
  return [...open, ...resolved];
}

export function PageReportsSection({ rpc, page, components }: PageSectionProps) {
  const [reports, reload] = useResource(
    () => rpc.reports.listStatusReports({ pageId: page.id, filter: 'all', perPage: 200 }).then((r) => inListOrder(r.statusReports)),
    page.id,
  );
  const [creating, setCreating] = useState(false);
  const [note, setNote] = useState<PublishedNote>();
  const remove = useConfirmedAction((report: StatusReport) => rpc.reports.deleteStatusReport({ id: report.id }), reload);

  const empty = reports.state === 'ready' && reports.value.length === 0;
  return (
    <section aria-labelledby="reports-heading" className="section">
      <div className="section-head">
        <h2 id="reports-heading">Status reports</h2>
        {reports.state !== 'ready' || creating || empty ? null : (
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
            <Icon name="plus" />
            New status report
          </button>
        )}
      </div>
      <p className="muted section-lede">
        A status report tells visitors about an incident: what is affected, what you know, and each step until it is resolved. An open report marks the
        components it names at least degraded.
      </p>

      {creating || empty ? (
        <CreateReportForm
          components={components}
          onCancel={empty ? undefined : () => setCreating(false)}
          onSubmit={async (values) => {
            const answer = await rpc.reports.createStatusReport({ pageId: page.id, ...values });
            setCreating(false);
            setNote(publishedNote(`Report “${values.title}” published.`, values.notify, answer.notified));
            await reload();
          }}
        />
      ) : null}
      <PublishedNoteLine note={note} />

      {reports.state === 'loading' ? <Loading what="status reports" /> : null}
      {reports.state === 'error' ? <ErrorNote>{reports.error.message}</ErrorNote> : null}
      {empty ? (
        <div className="empty">
          <p>
            <strong>No status reports.</strong> When something goes wrong, open one above so visitors know you are on it.
          </p>
        </div>
      ) : null}
      {reports.state === 'ready' && reports.value.length > 0 ? (
        <ul className="reports">
          {reports.value.map((report) => (
            <ReportCard key={report.id} report={report} components={components} rpc={rpc} onChanged={reload} onNote={setNote} onDelete={() => remove.ask(report)} />
          ))}
        </ul>
      ) : null}

      <ConfirmDialog {...remove.dialog} title={`Delete the report “${remove.target?.title ?? ''}”?`} confirmLabel="Delete report">
        <p>It disappears from the public page and its feed, with its whole timeline. Subscribers are not told. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}

function ReportCard({
  report,
  components,
  rpc,
  onChanged,
  onNote,
  onDelete,
}: {
  report: StatusReport;
  components: PageComponent[];
  rpc: PageSectionProps['rpc'];
  onChanged(): Promise<void>;
  onNote(note: PublishedNote): void;
  onDelete(): void;
}) {
  const [form, setForm] = useState<'update' | 'resolve'>();
  return (
    <li className={`card report${report.resolved ? ' report-resolved' : ''}`}>
      <div className="report-head">
        <h3>{report.title}</h3>
        <span className={`badge report-status report-${REPORT_STATUS_LABELS[report.status].toLowerCase()}`}>{REPORT_STATUS_LABELS[report.status]}</span>
      </div>
      <p className="small muted">
        Affects: {componentNames(components, report.pageComponentIds)} · opened <When iso={isoOf(report.createdAt)} />
        {report.resolved ? (
          <>
            {' '}
            · resolved <When iso={isoOf(report.resolvedAt)} />
          </>
        ) : null}
      </p>

      <ol className="timeline" aria-label={`Timeline of ${report.title}`}>
        {report.updates.map((update) => (
          <li key={update.id}>
            <span className="timeline-status">{REPORT_STATUS_LABELS[update.status]}</span>
            <span className="timeline-message">{update.message}</span>
            <span className="small muted">
              <When iso={isoOf(update.createdAt)} />
            </span>
          </li>
        ))}
      </ol>

      {form === 'update' ? (
        <UpdateForm
          title={`Add an update to ${report.title}`}
          submitLabel="Publish update"
          withStatus
          initialStatus={report.status === StatusReportStatus.RESOLVED ? StatusReportStatus.MONITORING : report.status}
          onCancel={() => setForm(undefined)}
          onSubmit={async ({ status, message, notify }) => {
            const answer = await rpc.reports.addStatusReportUpdate({ id: report.id, status, message, notify });
            setForm(undefined);
            onNote(publishedNote(`Update to “${report.title}” published.`, notify, answer.notified));
            await onChanged();
          }}
        />
      ) : null}
      {form === 'resolve' ? (
        <UpdateForm
          title={`Resolve ${report.title}`}
          submitLabel="Resolve report"
          initialMessage="This incident has been resolved."
          onCancel={() => setForm(undefined)}
          onSubmit={async ({ message, notify }) => {
            const answer = await rpc.reports.resolveStatusReport({ id: report.id, message, notify });
            setForm(undefined);
            onNote(publishedNote(`“${report.title}” resolved.`, notify, answer.notified));
            await onChanged();
          }}
        />
      ) : null}

      {form ? null : (
        <div className="row-actions report-actions">
          {report.resolved ? null : (
            <>
              <button type="button" className="button button-small" onClick={() => setForm('update')}>
                <Icon name="plus" />
                Add an update<span className="visually-hidden"> to {report.title}</span>
              </button>
              <button type="button" className="button button-small" onClick={() => setForm('resolve')}>
                <Icon name="check" />
                Resolve<span className="visually-hidden"> {report.title}</span>
              </button>
            </>
          )}
          <button type="button" className="button button-small button-danger-quiet" onClick={onDelete}>
            <Icon name="trash" />
            Delete<span className="visually-hidden"> {report.title}</span>
          </button>
        </div>
      )}
    </li>
  );
}

interface ReportValues {
  title: string;
  status: StatusReportStatus;
  message: string;
  pageComponentIds: string[];
  notify: boolean;
}

/**
 * Runs a publishing form's submit: refused at once without a notify choice (the first radio
 * takes the focus, described by the message beside the choice), else `send`; a refusal of the
 * service is kept for the fields to show.
 */
function usePublishing<T>(send: (values: T & { notify: boolean }) => Promise<void>) {
  const [notify, setNotify] = useState<boolean>();
  const [refused, setRefused] = useState(false);
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useFocusOnRefusal(form, error);

  const submit = (values: T) => async (event: FormEvent) => {
    event.preventDefault();
    if (notify === undefined) {
      setRefused(true);
      form.current?.querySelector<HTMLInputElement>('.notify-choice input[type="radio"]')?.focus();
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await send({ ...values, notify });
    } catch (caught) {
      setError(asApiError(caught));
      setBusy(false);
    }
  };
  return { notify, setNotify, refused, error, busy, form, submit };
}

function CreateReportForm({
  components,
  onCancel,
  onSubmit,
}: {
  components: PageComponent[];
  onCancel: (() => void) | undefined;
  onSubmit(values: ReportValues): Promise<void>;
}) {
  const [title, setTitle] = useState('');
  const [status, setStatus] = useState<StatusReportStatus>(StatusReportStatus.INVESTIGATING);
  const [message, setMessage] = useState('');
  const [affected, setAffected] = useState<string[]>([]);
  const publishing = usePublishing<Omit<ReportValues, 'notify'>>(onSubmit);
  const errors = matchViolations(publishing.error, ['title', 'status', 'message', 'pageComponentIds', 'notify']);
  const headingId = useId();

  return (
    <section aria-labelledby={headingId} className="card section">
      <h3 id={headingId}>New status report</h3>
      <form
        ref={publishing.form}
        className="stack-form"
        noValidate
        onSubmit={publishing.submit({ title: title.trim(), status, message: message.trim(), pageComponentIds: affected })}
      >
        <FormProblems error={publishing.error} errors={errors} />
        <div className="form-grid">
          <Field label="Title" error={errors.of('title')}>
            {(control) => <input {...control} type="text" value={title} maxLength={200} placeholder="Slow API responses" onChange={(e) => setTitle(e.target.value)} />}
          </Field>
          <StatusSelect value={status} onChange={setStatus} error={errors.of('status')} />
        </div>
        <ComponentChecklist legend="Affected components" components={components} selected={affected} onChange={setAffected} error={errors.of('pageComponentIds')} />
        <Field label="Message" hint="The first entry of the report's timeline." error={errors.of('message')}>
          {(control) => <textarea {...control} value={message} rows={3} onChange={(e) => setMessage(e.target.value)} />}
        </Field>
        <NotifyChoice name="report-notify" value={publishing.notify} onChange={publishing.setNotify} refused={publishing.refused} serviceRule={errors.of('notify')} />
        <FormActions busy={publishing.busy} submitLabel="Publish report" onCancel={onCancel} />
      </form>
    </section>
  );
}

function UpdateForm({
  title,
  submitLabel,
  withStatus = false,
  initialStatus = StatusReportStatus.INVESTIGATING,
  initialMessage = '',
  onCancel,
  onSubmit,
}: {
  title: string;
  submitLabel: string;
  withStatus?: boolean;
  initialStatus?: StatusReportStatus;
  initialMessage?: string;
  onCancel(): void;
  onSubmit(values: { status: StatusReportStatus; message: string; notify: boolean }): Promise<void>;
}) {
  const [status, setStatus] = useState(initialStatus);
  const [message, setMessage] = useState(initialMessage);
  const publishing = usePublishing<{ status: StatusReportStatus; message: string }>(onSubmit);
  const errors = matchViolations(publishing.error, ['status', 'message', 'notify']);
  const headingId = useId();
  return (
    <div className="report-form" role="group" aria-labelledby={headingId}>
      <h4 id={headingId}>{title}</h4>
      <form ref={publishing.form} className="stack-form" noValidate onSubmit={publishing.submit({ status, message: message.trim() })}>
        <FormProblems error={publishing.error} errors={errors} />
        {withStatus ? <StatusSelect value={status} onChange={setStatus} error={errors.of('status')} /> : null}
        <Field label="Message" error={errors.of('message')}>
          {(control) => <textarea {...control} value={message} rows={3} onChange={(e) => setMessage(e.target.value)} />}
        </Field>
        <NotifyChoice name={`${headingId}-notify`} value={publishing.notify} onChange={publishing.setNotify} refused={publishing.refused} serviceRule={errors.of('notify')} />
        <FormActions busy={publishing.busy} submitLabel={submitLabel} onCancel={onCancel} />
      </form>
    </div>
  );
}

function StatusSelect({ value, onChange, error }: { value: StatusReportStatus; onChange(status: StatusReportStatus): void; error: string | undefined }) {
  return (
    <Field label="Status" error={error}>
      {(control) => (
        <select {...control} value={value} onChange={(e) => onChange(Number(e.target.value) as StatusReportStatus)}>
          {OPEN_STATUSES.map((s) => (
            <option key={s} value={s}>
              {REPORT_STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

import { useState } from 'react';
import type { PageComponent } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import type { StatusReport } from '../../../proto/gen/status_report/v1/status_report_pb.js';
import { ConfirmDialog, ErrorNote, Loading } from '../components.tsx';
import { useAddStatusReportUpdate, useCreateStatusReport, useDeleteStatusReport, useResolveStatusReport, useStatusReports } from '../data/reports.ts';
import { loadedOf, useConfirmedAction } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { When } from '../time.tsx';
import { componentNames, isoOf, type PageSectionProps, type PublishedNote, publishedNote, PublishedNoteLine } from './page-form-parts.tsx';
import { CreateReportForm, UpdateForm } from './page-report-forms.tsx';
import { createReportRequest, REPORT_STATUS_LABELS, reportUpdateFormOf, reportUpdateRequest, resolveReportRequest } from './page-report-model.ts';

/** Open reports first (newest first), then resolved ones (latest resolved first). */
function inListOrder(reports: StatusReport[]): StatusReport[] {
  const open = reports.filter((r) => !r.resolved).sort((a, b) => (isoOf(b.createdAt) ?? '').localeCompare(isoOf(a.createdAt) ?? ''));
  const resolved = reports.filter((r) => r.resolved).sort((a, b) => (isoOf(b.resolvedAt) ?? '').localeCompare(isoOf(a.resolvedAt) ?? ''));
  return [...open, ...resolved];
}

export function PageReportsSection({ workspaceId, page, components }: PageSectionProps) {
  const reports = loadedOf(useStatusReports(workspaceId, page.id, inListOrder));
  const create = useCreateStatusReport(workspaceId);
  const [creating, setCreating] = useState(false);
  const [note, setNote] = useState<PublishedNote>();
  const deleteReport = useDeleteStatusReport(workspaceId);
  const remove = useConfirmedAction((report: StatusReport) => deleteReport.mutateAsync({ id: report.id }));

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
            const request = createReportRequest(page.id, values);
            const answer = await create.mutateAsync(request);
            setCreating(false);
            setNote(publishedNote(`Report “${request.title}” published.`, request.notify === true, answer.notified));
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
            <ReportCard
              key={report.id}
              workspaceId={workspaceId}
              report={report}
              components={components}
              onNote={setNote}
              onDelete={() => remove.ask(report)}
            />
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
  workspaceId,
  report,
  components,
  onNote,
  onDelete,
}: {
  workspaceId: string;
  report: StatusReport;
  components: PageComponent[];
  onNote(note: PublishedNote): void;
  onDelete(): void;
}) {
  const [form, setForm] = useState<'update' | 'resolve'>();
  const addUpdate = useAddStatusReportUpdate(workspaceId);
  const resolve = useResolveStatusReport(workspaceId);
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
          initial={reportUpdateFormOf(report.status)}
          onCancel={() => setForm(undefined)}
          onSubmit={async (values) => {
            const request = reportUpdateRequest(report.id, values);
            const answer = await addUpdate.mutateAsync(request);
            setForm(undefined);
            onNote(publishedNote(`Update to “${report.title}” published.`, request.notify === true, answer.notified));
          }}
        />
      ) : null}
      {form === 'resolve' ? (
        <UpdateForm
          title={`Resolve ${report.title}`}
          submitLabel="Resolve report"
          initial={reportUpdateFormOf(report.status, 'This incident has been resolved.')}
          onCancel={() => setForm(undefined)}
          onSubmit={async (values) => {
            const request = resolveReportRequest(report.id, values);
            const answer = await resolve.mutateAsync(request);
            setForm(undefined);
            onNote(publishedNote(`“${report.title}” resolved.`, request.notify === true, answer.notified));
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

import { useEffect, useId, useRef, useState } from 'react';
import { REPORT_LIMITS } from '../../../contract/limits.ts';
import type { MonitorIncident } from '../../../contract/dashboard-api.ts';
import type { PageComponent } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import { StatusReportStatus } from '../../../proto/gen/status_report/v1/status_report_pb.js';
import { ActionsTable, ErrorNote, Loading } from '../components.tsx';
import { useComponentsOfChosenPage, useMonitorIncidents } from '../data/monitor-incidents.ts';
import { useStatusPages } from '../data/pages.ts';
import { useCreateStatusReport } from '../data/reports.ts';
import { loadedOf } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { Link } from '../router.tsx';
import { StatusBadge } from '../status.tsx';
import { spanText } from './monitor-detail-heartbeat.tsx';
import { publishedNote, type PublishedNote } from './page-form-parts.tsx';
import { CreateReportForm } from './page-report-forms.tsx';
import { createReportRequest, type ReportFormValues } from './page-report-model.ts';
import './monitor-incidents.css';

// A monitor's incidents on its screen: each span it was down, and a status report made of one in
// one step. The report is made by the status page's own form and call (page-report-forms.tsx,
// CreateStatusReport): only what the form starts with comes from the incident.

/** An instant as this screen writes it: the viewer's local date and time, to the second. */
const timeText = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** An instant in a report's text, which visitors anywhere read: UTC, to the minute. */
const utcText = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * What the report form starts with for an incident: the monitor's name and that it is (or was)
 * down, Investigating, the page's components that follow the monitor, and a message with the
 * start and the first failure's reason. The notify choice stays unmade, as for every report.
 */
export function incidentReportForm(monitorId: string, monitorName: string, incident: MonitorIncident, components: PageComponent[]): ReportFormValues {
  const open = incident.endedAt === null;
  const span = open ? `since ${utcText(incident.startedAt)}` : `from ${utcText(incident.startedAt)} to ${utcText(incident.endedAt!)}`;
  return {
    title: clip(`${monitorName} ${open ? 'is' : 'was'} down`, REPORT_LIMITS.titleLength),
    status: StatusReportStatus.INVESTIGATING,
    message: clip(
      `${monitorName} ${open ? 'has been' : 'was'} down ${span}. The first failed check said: ${incident.firstMessage}`,
      REPORT_LIMITS.messageLength,
    ),
    pageComponentIds: components.filter((c) => c.monitorId === monitorId).map((c) => c.id),
    notify: undefined,
  };
}

export function MonitorIncidents({
  workspaceId,
  monitorId,
  monitorName,
  refreshMs,
}: {
  workspaceId: string;
  monitorId: string;
  monitorName: string;
  refreshMs?: number;
}) {
  const incidents = loadedOf(useMonitorIncidents(workspaceId, monitorId, refreshMs));
  const [reporting, setReporting] = useState<MonitorIncident>();
  const [note, setNote] = useState<PublishedNote & { pageId: string; pageTitle: string }>();

  return (
    <section className="section monitor-incidents" aria-labelledby="incidents-heading">
      <h2 id="incidents-heading">Incidents</h2>
      <p className="muted section-lede">Each time this monitor went down: from the check that found it down to the first check that found it up again.</p>
      {incidents.state === 'loading' ? <Loading what="incidents" /> : null}
      {incidents.state === 'error' ? <ErrorNote>{incidents.error.message}</ErrorNote> : null}
      {incidents.state === 'ready' && incidents.value.incidents.length === 0 ? (
        <p className="empty">
          <strong>No incidents.</strong> This monitor has not been down.
        </p>
      ) : null}
      {incidents.state === 'ready' && incidents.value.incidents.length > 0 ? (
        <ActionsTable columns={['Started', 'Ended', 'Duration', 'Failed checks', 'First failure']}>
          {incidents.value.incidents.map((incident) => (
            <tr key={incident.id}>
              <th scope="row">
                <time dateTime={incident.startedAt}>{timeText(incident.startedAt)}</time>
              </th>
              <td>
                {incident.endedAt ? <time dateTime={incident.endedAt}>{timeText(incident.endedAt)}</time> : <StatusBadge state="down" label="Still down" />}
              </td>
              <td>{spanText(incident.durationMs)}</td>
              <td>{incident.failedChecks}</td>
              <td className="incident-reason">{incident.firstMessage}</td>
              <td>
                <button
                  type="button"
                  className="button button-small"
                  aria-expanded={reporting?.id === incident.id}
                  onClick={() => {
                    setNote(undefined);
                    setReporting(incident);
                  }}
                >
                  <Icon name="plus" />
                  Create status report<span className="visually-hidden"> from the incident of {timeText(incident.startedAt)}</span>
                </button>
              </td>
            </tr>
          ))}
        </ActionsTable>
      ) : null}
      {reporting ? (
        <IncidentReport
          key={reporting.id}
          workspaceId={workspaceId}
          monitorId={monitorId}
          monitorName={monitorName}
          incident={reporting}
          onCancel={() => setReporting(undefined)}
          onPublished={(published) => {
            setReporting(undefined);
            setNote(published);
          }}
        />
      ) : null}
      <p role="status" className={note ? `note ${note.failed ? 'note-warning' : 'note-done'}` : 'visually-hidden'}>
        {note ? (
          <>
            {note.text} <Link to={`/pages/${note.pageId}`}>Open {note.pageTitle}</Link>
          </>
        ) : null}
      </p>
    </section>
  );
}

/** The page to publish on, then the status page's own report form, pre-filled from the incident. */
function IncidentReport({
  workspaceId,
  monitorId,
  monitorName,
  incident,
  onCancel,
  onPublished,
}: {
  workspaceId: string;
  monitorId: string;
  monitorName: string;
  incident: MonitorIncident;
  onCancel(): void;
  onPublished(note: PublishedNote & { pageId: string; pageTitle: string }): void;
}) {
  const pages = useStatusPages(workspaceId);
  const list = pages.data?.map((entry) => entry.page) ?? [];
  const [chosen, setChosen] = useState('');
  // With one page there is nothing to choose.
  const pageId = chosen || (list.length === 1 ? list[0]!.id : '');
  const components = loadedOf(useComponentsOfChosenPage(workspaceId, pageId));
  const create = useCreateStatusReport(workspaceId);
  const headingId = useId();
  const selectId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const showsForm = pageId !== '' && components.state === 'ready';

  return (
    <div className="section incident-report" role="group" aria-labelledby={headingId}>
      <div className="section-head">
        <h3 id={headingId} ref={heading} tabIndex={-1}>
          Status report from the incident of {timeText(incident.startedAt)}
        </h3>
        {/* Once the form is shown, its own Cancel closes it. */}
        {showsForm ? null : (
          <button type="button" className="button button-small" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      {pages.error ? <ErrorNote>{pages.error.message}</ErrorNote> : null}
      {!pages.data && !pages.error ? <Loading what="status pages" /> : null}
      {pages.data && list.length === 0 ? (
        <p className="empty">
          <strong>No status pages.</strong> A status report is published on a status page: <Link to="/pages">create one</Link> first.
        </p>
      ) : null}
      {list.length > 0 ? (
        <div className="field">
          <label htmlFor={selectId}>Status page</label>
          <select id={selectId} value={pageId} onChange={(event) => setChosen(event.target.value)}>
            {list.length > 1 ? <option value="">Choose a page</option> : null}
            {list.map((page) => (
              <option key={page.id} value={page.id}>
                {page.title}
              </option>
            ))}
          </select>
          <p className="field-hint">The components of the page that show this monitor are chosen for you.</p>
        </div>
      ) : null}
      {pageId && components.state === 'loading' ? <Loading what="the page's components" /> : null}
      {pageId && components.state === 'error' ? <ErrorNote>{components.error.message}</ErrorNote> : null}
      {showsForm && components.state === 'ready' ? (
        <CreateReportForm
          key={pageId}
          components={components.value}
          initial={incidentReportForm(monitorId, monitorName, incident, components.value)}
          onCancel={onCancel}
          onSubmit={async (values) => {
            const request = createReportRequest(pageId, values);
            const answer = await create.mutateAsync(request);
            const pageTitle = list.find((page) => page.id === pageId)?.title ?? 'the page';
            onPublished({
              ...publishedNote(`Report “${request.title}” published on ${pageTitle}.`, request.notify === true, answer.notified),
              pageId,
              pageTitle,
            });
          }}
        />
      ) : null}
    </div>
  );
}

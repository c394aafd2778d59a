import type { MessageInitShape } from '@bufbuild/protobuf';
import { type FormEvent, useId, useRef, useState } from 'react';
import type { CreateNotificationChannelRequestSchema, NotificationChannel } from '../../../proto/gen/notification/v1/notification_pb.js';
import { ApiError } from '../api.ts';
import type { ScreenProps } from '../app.tsx';
import { ActionsTable, ConfirmDialog, ErrorNote, Loading, PageHeader } from '../components.tsx';
import {
  entriesOf,
  Field,
  FieldGroup,
  FormProblems,
  KeyValueEditor,
  type KeyValueRow,
  matchViolations,
  rowsOf,
  TagInput,
  useFocusOnRefusal,
} from '../forms.tsx';
import { type MonitorChoice, useMonitorChoices } from '../data/monitors.ts';
import { useChannels, useCreateChannel, useDeleteChannel, useSendTest, useUpdateChannel } from '../data/notifications.ts';
import { asApiError, loadedOf, useConfirmedAction } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { When } from '../time.tsx';
import { FormActions, isoOf } from './page-form-parts.tsx';
import './notifications.css';

// The workspace's notification channels: where monitors' alerts go. Credentials (webhook URLs,
// secrets, header values, SMTP URLs, ntfy topics and tokens) are only ever shown masked; an edit
// form leaves them empty, and an empty credential keeps the stored one.

type Kind = 'webhook' | 'slack' | 'discord' | 'email' | 'ntfy' | 'desktop';

const KINDS: { kind: Kind; label: string; hint: string }[] = [
  { kind: 'webhook', label: 'Webhook', hint: 'A signed JSON POST to your address' },
  { kind: 'slack', label: 'Slack', hint: 'An incoming webhook of a channel' },
  { kind: 'discord', label: 'Discord', hint: 'A webhook of a channel' },
  { kind: 'email', label: 'Email', hint: 'Mail to up to 20 addresses' },
  { kind: 'ntfy', label: 'ntfy', hint: 'A push to an ntfy topic' },
  { kind: 'desktop', label: 'Desktop', hint: 'A notification of this app' },
];
const kindLabel = (kind: string) => KINDS.find((k) => k.kind === kind)?.label ?? kind;

/** Where a channel sends, as far as its masked settings tell. */
function targetOf(channel: NotificationChannel): string {
  const c = channel.config;
  switch (c.case) {
    case 'webhook':
      return c.value.url;
    case 'slack':
    case 'discord':
      return c.value.webhookUrl;
    case 'email':
      return c.value.to.join(', ');
    case 'ntfy':
      return `${c.value.server || 'https://ntfy.sh'}, topic ${c.value.topic}`;
    case 'desktop':
      return 'This app on this computer';
    default:
      return '';
  }
}

type TestAnswer = { state: 'sending' } | { state: 'done'; delivered: boolean; error: string };

export function NotificationsScreen({ workspace }: ScreenProps) {
  const channels = loadedOf(useChannels(workspace.id));
  const choices = useMonitorChoices(workspace.id);
  const monitors = loadedOf({ data: choices.data?.monitors, error: choices.error });
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string>();
  const [tests, setTests] = useState<Record<string, TestAnswer>>({});
  const deleteChannel = useDeleteChannel(workspace.id);
  const sendTestNotification = useSendTest(workspace.id);
  const remove = useConfirmedAction(
    (channel: NotificationChannel) => deleteChannel.mutateAsync({ id: channel.id }),
    async () => undefined,
  );

  const sendTest = async (channel: NotificationChannel) => {
    setTests((t) => ({ ...t, [channel.id]: { state: 'sending' } }));
    try {
      const answer = await sendTestNotification.mutateAsync({ id: channel.id });
      setTests((t) => ({ ...t, [channel.id]: { state: 'done', delivered: answer.delivered, error: answer.error } }));
    } catch (error) {
      setTests((t) => ({ ...t, [channel.id]: { state: 'done', delivered: false, error: asApiError(error).message } }));
    }
  };

  const empty = channels.state === 'ready' && channels.value.length === 0;
  const monitorList = monitors.state === 'ready' ? monitors.value : [];
  const editingChannel = channels.state === 'ready' ? channels.value.find((c) => c.id === editing) : undefined;
  return (
    <div className="notifications-screen">
      <PageHeader
        title="Notifications"
        actions={
          channels.state !== 'ready' || creating || empty ? null : (
            <button
              type="button"
              className="button button-primary"
              onClick={() => {
                setEditing(undefined);
                setCreating(true);
              }}
            >
              <Icon name="plus" />
              New channel
            </button>
          )
        }
      >
        Channels tell you when a monitor of {workspace.name} goes down or comes back: by webhook, Slack, Discord, email, ntfy or a desktop notification.
      </PageHeader>

      {monitors.state === 'error' ? <ErrorNote>{monitors.error.message}</ErrorNote> : null}
      {creating || empty ? (
        <ChannelForm
          workspaceId={workspace.id}
          monitors={monitorList}
          first={empty}
          onCancel={empty ? undefined : () => setCreating(false)}
          onSaved={() => setCreating(false)}
        />
      ) : null}
      {editingChannel ? (
        <ChannelForm
          key={editingChannel.id}
          workspaceId={workspace.id}
          monitors={monitorList}
          channel={editingChannel}
          onCancel={() => setEditing(undefined)}
          onSaved={() => setEditing(undefined)}
        />
      ) : null}

      <section aria-labelledby="channels-heading" className="section">
        <h2 id="channels-heading">Channels of {workspace.name}</h2>
        {channels.state === 'loading' ? <Loading what="notification channels" /> : null}
        {channels.state === 'error' ? <ErrorNote>{channels.error.message}</ErrorNote> : null}
        {empty ? (
          <div className="empty">
            <p>
              <strong>No channels yet.</strong> Without one, nobody hears when a monitor goes down. Create one above, choose the monitors it listens to, then
              press Send test to see it arrive.
            </p>
          </div>
        ) : null}
        {channels.state === 'ready' && channels.value.length > 0 ? (
          <ActionsTable columns={['Name', 'Kind', 'Sends to', 'Monitors', 'Changed', 'Test']}>
            {channels.value.map((channel) => {
              const test = tests[channel.id];
              return (
                <tr key={channel.id}>
                  <th scope="row">{channel.name}</th>
                  <td>{kindLabel(channel.kind)}</td>
                  <td>
                    <code className="channel-target">{targetOf(channel)}</code>
                  </td>
                  <td>{channel.monitorIds.length === 0 ? <span className="muted">None</span> : channel.monitorIds.length}</td>
                  <td>
                    <When iso={isoOf(channel.updatedAt)} />
                  </td>
                  <td className="test-cell">
                    <span role="status" className="test-answer">
                      {test?.state === 'sending' ? <span className="muted">Sending…</span> : null}
                      {test?.state === 'done' && test.delivered ? (
                        <span className="test-delivered">
                          <Icon name="check" />
                          Delivered
                        </span>
                      ) : null}
                      {test?.state === 'done' && !test.delivered ? (
                        <span className="test-failed">
                          <Icon name="warning" />
                          Not delivered: {test.error || 'the channel did not accept it'}
                        </span>
                      ) : null}
                    </span>
                  </td>
                  <td className="cell-actions">
                    <div className="row-actions">
                      <button type="button" className="button button-small" disabled={test?.state === 'sending'} onClick={() => void sendTest(channel)}>
                        <Icon name="bell" />
                        Send test<span className="visually-hidden"> to {channel.name}</span>
                      </button>
                      <button
                        type="button"
                        className="button button-small"
                        onClick={() => {
                          setCreating(false);
                          setEditing(channel.id);
                        }}
                      >
                        <Icon name="edit" />
                        Edit<span className="visually-hidden"> {channel.name}</span>
                      </button>
                      <button type="button" className="button button-small button-danger-quiet" onClick={() => remove.ask(channel)}>
                        <Icon name="trash" />
                        Delete<span className="visually-hidden"> {channel.name}</span>
                      </button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </ActionsTable>
        ) : null}
      </section>

      <ConfirmDialog {...remove.dialog} title={`Delete the channel “${remove.target?.name ?? ''}”?`} confirmLabel="Delete channel">
        <p>Its monitors' alerts stop going there. The monitors themselves are not changed. This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  );
}

/** What the form holds, for every kind at once, so switching kinds keeps what was typed. */
interface ChannelValues {
  name: string;
  kind: Kind;
  monitorIds: string[];
  url: string;
  secret: string;
  headers: KeyValueRow[];
  webhookUrl: string;
  to: string[];
  from: string;
  smtpUrl: string;
  server: string;
  topic: string;
  priority: string;
  token: string;
}

function valuesOf(channel: NotificationChannel | undefined): ChannelValues {
  const values: ChannelValues = {
    name: channel?.name ?? '',
    kind: (channel?.kind as Kind | undefined) ?? 'webhook',
    monitorIds: channel ? [...channel.monitorIds] : [],
    url: '',
    secret: '',
    headers: [],
    webhookUrl: '',
    to: [],
    from: '',
    smtpUrl: '',
    server: '',
    topic: '',
    priority: '',
    token: '',
  };
  const c = channel?.config;
  // Credentials stay empty: the service shows them masked, and an empty one is kept.
  if (c?.case === 'webhook') values.headers = rowsOf(c.value.headers, () => true);
  if (c?.case === 'email') {
    values.to = [...c.value.to];
    values.from = c.value.from ?? '';
  }
  if (c?.case === 'ntfy') {
    values.server = c.value.server;
    values.priority = c.value.priority === undefined ? '' : String(c.value.priority);
  }
  return values;
}

/** The masked value the service showed for a credential, for the hint beside its empty input. */
function maskedOf(channel: NotificationChannel | undefined, field: string): string | undefined {
  const value = channel?.config.value as Record<string, unknown> | undefined;
  const shown = value?.[field];
  return typeof shown === 'string' && shown !== '' ? shown : undefined;
}

/** What the service shows for a header value; sent back as shown, the stored value is kept. */
const KEPT_HEADER = '••••••••';

function configOf(values: ChannelValues): MessageInitShape<typeof CreateNotificationChannelRequestSchema>['config'] {
  const optional = (text: string) => (text.trim() === '' ? undefined : text.trim());
  switch (values.kind) {
    case 'webhook':
      return { case: 'webhook', value: { url: values.url.trim(), secret: values.secret, headers: entriesOf(values.headers, KEPT_HEADER) } };
    case 'slack':
      return { case: 'slack', value: { webhookUrl: values.webhookUrl.trim() } };
    case 'discord':
      return { case: 'discord', value: { webhookUrl: values.webhookUrl.trim() } };
    case 'email':
      // An empty SMTP URL is left out: on an edit that keeps the stored one, on a create it means the service's.
      return { case: 'email', value: { to: values.to, from: optional(values.from), smtpUrl: optional(values.smtpUrl) } };
    case 'ntfy':
      return {
        case: 'ntfy',
        value: {
          server: values.server.trim(),
          topic: values.topic.trim(),
          priority: values.priority === '' ? undefined : Number(values.priority),
          token: optional(values.token),
        },
      };
    case 'desktop':
      return { case: 'desktop', value: {} };
  }
}

function ChannelForm({
  workspaceId,
  monitors,
  channel,
  first = false,
  onCancel,
  onSaved,
}: {
  workspaceId: string;
  monitors: MonitorChoice[];
  channel?: NotificationChannel;
  first?: boolean;
  onCancel: (() => void) | undefined;
  /** Called once the change is saved and the channels are asked for again. */
  onSaved(): void;
}) {
  const createChannel = useCreateChannel(workspaceId);
  const updateChannel = useUpdateChannel(workspaceId);
  const [values, setValues] = useState(() => valuesOf(channel));
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useFocusOnRefusal(form, error);
  const headingId = useId();
  const set = (change: Partial<ChannelValues>) => setValues((v) => ({ ...v, ...change }));
  const k = values.kind;
  const errors = matchViolations(error, [
    'name',
    'kind',
    'monitorIds',
    `${k}.url`,
    `${k}.secret`,
    `${k}.headers`,
    `${k}.webhookUrl`,
    `${k}.to`,
    `${k}.from`,
    `${k}.smtpUrl`,
    `${k}.server`,
    `${k}.topic`,
    `${k}.priority`,
    `${k}.token`,
    k,
  ]);
  const editing = channel !== undefined;
  const kept = (field: string) => {
    const masked = maskedOf(channel, field);
    return masked ? `Stored and hidden (${masked}). Leave empty to keep it.` : undefined;
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // Header values come back masked: a changed list of headers replaces the stored one whole, so each value is needed again.
    const original = channel?.config.case === 'webhook' ? Object.keys(channel.config.value.headers) : [];
    const headersChanged = values.headers.some((r) => !r.kept || r.value !== '') || values.headers.length !== original.length;
    const missing = values.headers.filter((r) => r.kept && r.value === '' && r.name.trim());
    if (k === 'webhook' && headersChanged && missing.length > 0) {
      const rule = `the headers are replaced together: type the value of ${missing.map((r) => r.name).join(', ')} again, or remove it`;
      setError(new ApiError(400, 'VALIDATION', rule, [{ field: 'webhook.headers', rule }]));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const config = configOf(values);
      if (channel) {
        await updateChannel.mutateAsync({
          id: channel.id,
          name: values.name.trim(),
          monitorIds: values.monitorIds,
          config,
          // Named, so an emptied list of monitors detaches them all.
          updateMask: { paths: ['name', 'monitor_ids', 'config'] },
        });
      } else {
        await createChannel.mutateAsync({ name: values.name.trim(), monitorIds: values.monitorIds, config });
      }
      onSaved();
    } catch (caught) {
      setError(asApiError(caught));
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby={headingId} className="card section channel-form">
      <h2 id={headingId}>{channel ? `Edit ${channel.name}` : first ? 'Create your first channel' : 'New channel'}</h2>
      <form ref={form} className="stack-form" onSubmit={submit} noValidate>
        <FormProblems error={error} errors={errors} />
        <Field label="Name" error={errors.of('name')}>
          {(control) => (
            <input {...control} type="text" value={values.name} maxLength={200} placeholder="On-call webhook" onChange={(e) => set({ name: e.target.value })} />
          )}
        </Field>
        {editing ? (
          <p className="small">
            Kind: <strong>{kindLabel(k)}</strong> <span className="muted">(a channel keeps its kind; create another for a different one)</span>
          </p>
        ) : (
          <FieldGroup legend="Kind" error={errors.of('kind')}>
            {(control) => (
              <div className="kind-choices">
                {KINDS.map((option) => (
                  <div className="radio" key={option.kind}>
                    <input
                      type="radio"
                      id={`${headingId}-${option.kind}`}
                      name={`${headingId}-kind`}
                      checked={k === option.kind}
                      {...control}
                      onChange={() => set({ kind: option.kind })}
                    />
                    <label htmlFor={`${headingId}-${option.kind}`}>{option.label}</label>
                    <small>{option.hint}</small>
                  </div>
                ))}
              </div>
            )}
          </FieldGroup>
        )}

        {k === 'webhook' ? (
          <>
            <div className="form-grid">
              <Field label="URL" hint={kept('url') ?? 'The http:// or https:// address that receives each alert as JSON.'} error={errors.of('webhook.url')}>
                {(control) => (
                  <input
                    {...control}
                    type="url"
                    value={values.url}
                    autoComplete="off"
                    placeholder="https://example.com/hooks/alerts"
                    onChange={(e) => set({ url: e.target.value })}
                  />
                )}
              </Field>
              <Field
                label="Signing secret"
                hint={kept('secret') ?? 'Your choice, 16 to 256 characters: the key of the x-statusdesk-signature header your receiver checks.'}
                error={errors.of('webhook.secret')}
              >
                {(control) => (
                  <input {...control} type="password" value={values.secret} autoComplete="new-password" onChange={(e) => set({ secret: e.target.value })} />
                )}
              </Field>
            </div>
            <KeyValueEditor
              legend="Headers (optional)"
              item="Header"
              field="webhook.headers"
              rows={values.headers}
              onChange={(headers) => set({ headers })}
              errors={errors}
              namePlaceholder="authorization"
              valuePlaceholder="Bearer …"
              keptHint="Hidden by the service. Changing the headers replaces them all: type this value again, or leave every header as it is."
            />
          </>
        ) : null}

        {k === 'slack' || k === 'discord' ? (
          <Field
            label="Webhook URL"
            hint={kept('webhookUrl') ?? (k === 'slack' ? 'https://hooks.slack.com/services/…' : 'https://discord.com/api/webhooks/…')}
            error={errors.of(`${k}.webhookUrl`)}
          >
            {(control) => <input {...control} type="url" value={values.webhookUrl} autoComplete="off" onChange={(e) => set({ webhookUrl: e.target.value })} />}
          </Field>
        ) : null}

        {k === 'email' ? (
          <>
            <TagInput
              label="Recipients"
              tags={values.to}
              onChange={(to) => set({ to })}
              error={errors.of('email.to')}
              hint="1 to 20 addresses. Press Enter or type a comma after each."
            />
            <div className="form-grid">
              <Field label="Sender (optional)" hint="Empty: the service's sender (STATUSDESK_MAIL_FROM)." error={errors.of('email.from')}>
                {(control) => <input {...control} type="email" value={values.from} autoComplete="off" onChange={(e) => set({ from: e.target.value })} />}
              </Field>
              <Field
                label="SMTP server (optional)"
                hint={
                  kept('smtpUrl') ??
                  "smtp:// or smtps:// with its login, e.g. smtps://user:password@smtp.example.com:465. Empty: the service's (STATUSDESK_SMTP_URL)."
                }
                error={errors.of('email.smtpUrl')}
              >
                {(control) => (
                  <input
                    {...control}
                    type="text"
                    value={values.smtpUrl}
                    autoComplete="off"
                    spellCheck={false}
                    onChange={(e) => set({ smtpUrl: e.target.value })}
                  />
                )}
              </Field>
            </div>
          </>
        ) : null}

        {k === 'ntfy' ? (
          <div className="form-grid">
            <Field label="Server" hint="Empty: https://ntfy.sh." error={errors.of('ntfy.server')}>
              {(control) => (
                <input
                  {...control}
                  type="url"
                  value={values.server}
                  autoComplete="off"
                  placeholder="https://ntfy.sh"
                  onChange={(e) => set({ server: e.target.value })}
                />
              )}
            </Field>
            <Field
              label="Topic"
              hint={kept('topic') ?? '1 to 64 letters, digits, - or _. On a public server the topic is the password: pick one hard to guess.'}
              error={errors.of('ntfy.topic')}
            >
              {(control) => (
                <input {...control} type="text" value={values.topic} autoComplete="off" spellCheck={false} onChange={(e) => set({ topic: e.target.value })} />
              )}
            </Field>
            <Field label="Priority" error={errors.of('ntfy.priority')}>
              {(control) => (
                <select {...control} value={values.priority} onChange={(e) => set({ priority: e.target.value })}>
                  <option value="">The server's default</option>
                  <option value="1">1, min</option>
                  <option value="2">2, low</option>
                  <option value="3">3, default</option>
                  <option value="4">4, high</option>
                  <option value="5">5, max</option>
                </select>
              )}
            </Field>
            <Field label="Access token (optional)" hint={kept('token') ?? 'For a protected topic.'} error={errors.of('ntfy.token')}>
              {(control) => (
                <input {...control} type="password" value={values.token} autoComplete="new-password" onChange={(e) => set({ token: e.target.value })} />
              )}
            </Field>
          </div>
        ) : null}

        {k === 'desktop' ? <p className="small muted">Nothing to set: alerts show as notifications of the Statusdesk desktop app while it runs.</p> : null}

        <MonitorPicker monitors={monitors} selected={values.monitorIds} onChange={(monitorIds) => set({ monitorIds })} error={errors.of('monitorIds')} />
        <FormActions busy={busy} submitLabel={channel ? 'Save channel' : 'Create channel'} onCancel={onCancel} />
      </form>
    </section>
  );
}

/** The monitors whose alerts go to the channel: checkboxes, narrowed by a filter when there are many. */
function MonitorPicker({
  monitors,
  selected,
  onChange,
  error,
}: {
  monitors: MonitorChoice[];
  selected: string[];
  onChange(ids: string[]): void;
  error: string | undefined;
}) {
  const [filter, setFilter] = useState('');
  const filterId = useId();
  const shown = filter ? monitors.filter((m) => m.name.toLowerCase().includes(filter.toLowerCase())) : monitors;
  return (
    <FieldGroup
      legend="Monitors"
      hint={
        monitors.length === 0
          ? 'The workspace has no monitors yet; add them here later.'
          : `${selected.length} of ${monitors.length} chosen: their alerts go to this channel.`
      }
      error={error}
      className="monitor-picker"
    >
      {(control) => (
        <>
          {monitors.length > 8 ? (
            <div className="picker-filter">
              <label htmlFor={filterId}>Filter monitors</label>
              <input id={filterId} type="text" value={filter} autoComplete="off" onChange={(e) => setFilter(e.target.value)} />
            </div>
          ) : null}
          {monitors.length > 0 ? (
            <div className="picker-list">
              {shown.map((m) => (
                <label key={m.id} className="check">
                  <input
                    type="checkbox"
                    {...control}
                    checked={selected.includes(m.id)}
                    onChange={(e) => onChange(e.target.checked ? [...selected, m.id] : selected.filter((id) => id !== m.id))}
                  />
                  <span>
                    {m.name}
                    {m.active ? '' : <span className="muted small"> (paused)</span>}
                  </span>
                </label>
              ))}
              {shown.length === 0 ? <p className="muted small">No monitor's name holds “{filter}”.</p> : null}
            </div>
          ) : null}
        </>
      )}
    </FieldGroup>
  );
}

import { type FormEvent, useId, useRef, useState } from 'react';
import { ALERT_TOPICS, type AlertTopic, alertTopics } from '../../../contract/alert-topics.ts';
import { CHANNEL_LIMITS } from '../../../contract/limits.ts';
import type { NotificationChannel } from '../../../proto/gen/notification/v1/notification_pb.js';
import { ApiError } from '../api.ts';
import type { ScreenProps } from '../app.tsx';
import { ActionsTable, ConfirmDialog, ErrorNote, Loading, PageHeader } from '../components.tsx';
import { DeclaredField } from '../declared-field.tsx';
import { type DeclaredFieldHints, inputOf, isPlain } from '../declared-input.ts';
import {
  Field,
  FieldGroup,
  type FieldErrors,
  FormProblems,
  KeyValueEditor,
  type KeyValueRow,
  matchViolations,
  TagInput,
  useFocusOnRefusal,
} from '../forms.tsx';
import { useChannels, useCreateChannel, useDeleteChannel, useSendTest, useUpdateChannel } from '../data/notifications.ts';
import { useSession } from '../data/session.ts';
import { EmailNotSetUp } from '../email-notice.tsx';
import { asApiError, loadedOf, useConfirmedAction } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { Link } from '../router.tsx';
import { When } from '../time.tsx';
import {
  CHANNEL_KIND_LIST,
  type ChannelValues,
  channelConfigOf,
  channelHealthOf,
  channelKindOf,
  channelTargetOf,
  channelValuesOf,
  type FieldValue,
  hintOf,
  itemOf,
  keptMapViolations,
  labelOf,
  maskedOf,
  rowPlaceholdersOf,
  violationFieldsOf,
} from './channel-form-model.ts';
import { MonitorPicker } from '../monitor-picker.tsx';
import { ChannelScopeFields, SigningSecretField } from './channel-form-parts.tsx';
import { FormActions, isoOf } from './page-form-parts.tsx';
import './notifications.css';

// The workspace's notification channels: where monitors' alerts go. Each kind and its fields are
// the service's declarations (contract/channel-kinds.ts): the form draws them, so a new kind needs
// no change here. Credentials are only ever shown masked; an edit form leaves them empty, and an
// empty credential keeps the stored one.

const kindLabel = (kind: string) => channelKindOf(kind)?.label ?? kind;

/** `webhook, Slack, … or desktop`: the kinds as a sentence names them. */
const KIND_WORDS = (() => {
  const titles = CHANNEL_KIND_LIST.map((kind) => kind.title);
  return titles.length > 1 ? `${titles.slice(0, -1).join(', ')} or ${titles.at(-1)}` : (titles[0] ?? '');
})();

type TestAnswer = { state: 'sending' } | { state: 'done'; delivered: boolean; error: string };

export function NotificationsScreen({ workspace }: ScreenProps) {
  const channels = loadedOf(useChannels(workspace.id));
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
        Channels tell you when a monitor of {workspace.name} goes down or comes back: by {KIND_WORDS}.
      </PageHeader>

      {creating || empty ? (
        <ChannelForm workspaceId={workspace.id} first={empty} onCancel={empty ? undefined : () => setCreating(false)} onSaved={() => setCreating(false)} />
      ) : null}
      {editingChannel ? (
        <ChannelForm
          key={editingChannel.id}
          workspaceId={workspace.id}
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
          <ActionsTable columns={['Name', 'Kind', 'Sends to', 'Monitors', 'Delivery', 'Changed', 'Test']}>
            {channels.value.map((channel) => {
              const test = tests[channel.id];
              const health = channelHealthOf(channel);
              return (
                <tr key={channel.id}>
                  <th scope="row">{channel.name}</th>
                  <td>{kindLabel(channel.kind)}</td>
                  <td>
                    <code className="channel-target">{channelTargetOf(channel)}</code>
                  </td>
                  <td>{channel.allMonitors ? 'All' : channel.monitorIds.length === 0 ? <span className="muted">None</span> : channel.monitorIds.length}</td>
                  <td className={`channel-health channel-health-${health.state}`}>
                    {health.state === 'ok' ? null : <Icon name="warning" />}
                    {health.words}
                    {health.error ? <small className="channel-health-error">{health.error}</small> : null}
                    <Link to={`/notifications/${channel.id}/deliveries`} className="channel-log-link small">
                      Delivery log<span className="visually-hidden"> of {channel.name}</span>
                    </Link>
                  </td>
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

function ChannelForm({
  workspaceId,
  channel,
  first = false,
  onCancel,
  onSaved,
}: {
  workspaceId: string;
  channel?: NotificationChannel;
  first?: boolean;
  onCancel: (() => void) | undefined;
  /** Called once the change is saved and the channels are asked for again. */
  onSaved(): void;
}) {
  const createChannel = useCreateChannel(workspaceId);
  const updateChannel = useUpdateChannel(workspaceId);
  const [values, setValues] = useState(() => channelValuesOf(channel));
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useFocusOnRefusal(form, error);
  const headingId = useId();
  const set = (change: Partial<ChannelValues>) => setValues((v) => ({ ...v, ...change }));
  const setField = (name: string, value: FieldValue) => setValues((v) => ({ ...v, config: { ...v.config, [v.kind]: { ...v.config[v.kind], [name]: value } } }));
  const k = values.kind;
  const kind = channelKindOf(k);
  // Whether the service has a mail server (Settings, General, Email), which email channels use unless they name their own.
  const emailAvailable = useSession(true).data?.emailAvailable ?? true;
  const errors = matchViolations(error, ['name', 'kind', 'monitorIds', 'events', 'allMonitors', 'defaultForNew', ...violationFieldsOf(k)]);
  const editing = channel !== undefined;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const refused = keptMapViolations(values, channel);
    if (refused.length > 0) {
      setError(new ApiError(400, 'VALIDATION', refused.map((v) => v.rule).join('; '), refused));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const config = channelConfigOf(values);
      if (channel) {
        await updateChannel.mutateAsync({
          id: channel.id,
          name: values.name.trim(),
          monitorIds: values.monitorIds,
          events: values.events,
          config,
          allMonitors: values.allMonitors,
          defaultForNew: values.defaultForNew,
          // Named, so an emptied list of monitors detaches them all, and no event ticked is every event.
          updateMask: { paths: ['name', 'monitor_ids', 'events', 'config', 'all_monitors', 'default_for_new'] },
        });
      } else {
        const { allMonitors, defaultForNew } = values;
        await createChannel.mutateAsync({ name: values.name.trim(), monitorIds: values.monitorIds, events: values.events, config, allMonitors, defaultForNew });
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
            <input
              {...control}
              type="text"
              value={values.name}
              maxLength={CHANNEL_LIMITS.nameLength}
              placeholder="On-call webhook"
              onChange={(e) => set({ name: e.target.value })}
            />
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
                {CHANNEL_KIND_LIST.map((option) => (
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

        {k === 'email' && !emailAvailable ? (
          <EmailNotSetUp>This service has no mail server yet: give this channel its own below, or set one up for the whole service.</EmailNotSetUp>
        ) : null}
        {kind && kind.fields.length > 0 ? (
          <KindFields
            fields={kind.fields}
            values={values.config[k] ?? {}}
            onChange={setField}
            errors={errors}
            pathOf={(field) => `${k}.${field.name}`}
            maskOf={(field) => maskedOf(channel, field)}
          />
        ) : (
          <p className="small muted">Nothing to set: {kind?.hint ? kind.hint[0]!.toLowerCase() + kind.hint.slice(1) : 'this kind has no settings'}.</p>
        )}

        <ChannelScopeFields allMonitors={values.allMonitors} defaultForNew={values.defaultForNew} onChange={set} errors={errors} />
        {values.allMonitors ? null : (
          <MonitorPicker
            workspaceId={workspaceId}
            legend="Monitors"
            multiple
            selected={values.monitorIds}
            onChange={(monitorIds) => set({ monitorIds })}
            hint={(chosen, total) =>
              total === 0
                ? 'The workspace has no monitors yet; add them here later.'
                : `${chosen} of ${total.toLocaleString('en')} chosen: their alerts go to this channel.`
            }
            error={errors.of('monitorIds')}
          />
        )}
        <EventPicker selected={values.events} onChange={(events) => set({ events })} error={errors.of('events')} />
        <FormActions busy={busy} submitLabel={channel ? 'Save channel' : 'Create channel'} onCancel={onCancel} />
      </form>
    </section>
  );
}

/** The events a channel receives: none ticked is every event, as the service reads it. */
function EventPicker({ selected, onChange, error }: { selected: string[]; onChange(events: string[]): void; error?: string }) {
  const toggle = (topic: AlertTopic, on: boolean) => onChange(alertTopics.filter((t) => (t === topic ? on : selected.includes(t))));
  return (
    <FieldGroup
      legend="Events"
      hint={selected.length === 0 ? 'None ticked: every event.' : `${selected.length} of ${alertTopics.length} events.`}
      error={error}
    >
      {(control) => (
        <div className="kind-choices">
          {alertTopics.map((topic) => (
            <label key={topic} className="check">
              <input type="checkbox" checked={selected.includes(topic)} {...control} onChange={(e) => toggle(topic, e.target.checked)} />
              {ALERT_TOPICS[topic]}
            </label>
          ))}
        </div>
      )}
    </FieldGroup>
  );
}

/**
 * A kind's fields in their declared order: the ones that fit beside each other in a grid, a list
 * or a map across the form's width.
 */
function KindFields({
  fields,
  values,
  onChange,
  errors,
  pathOf,
  maskOf,
}: {
  fields: readonly DeclaredFieldHints[];
  values: Record<string, FieldValue>;
  onChange(name: string, value: FieldValue): void;
  errors: FieldErrors;
  pathOf(field: DeclaredFieldHints): string;
  /** The masked value the service shows for a stored credential. */
  maskOf(field: DeclaredFieldHints): string | undefined;
}) {
  // Runs of plain fields, each list or map a run of its own.
  const runs: DeclaredFieldHints[][] = [];
  for (const field of fields) {
    const last = runs.at(-1);
    if (last && isPlain(field) && isPlain(last[0]!)) last.push(field);
    else runs.push([field]);
  }
  const draw = (field: DeclaredFieldHints) => (
    <ChannelField
      key={field.name}
      field={field}
      value={values[field.name] ?? ''}
      onChange={(value) => onChange(field.name, value)}
      errors={errors}
      path={pathOf(field)}
      masked={maskOf(field)}
    />
  );
  return runs.map((run) =>
    run.length > 1 ? (
      <div className="form-grid" key={run[0]!.name}>
        {run.map(draw)}
      </div>
    ) : (
      draw(run[0]!)
    ),
  );
}

/**
 * One field of a kind in the channel form's words: a field that may be left empty says so, a
 * stored credential starts empty (empty keeps it), a list is typed as tags and a map as rows.
 */
function ChannelField({
  field,
  value,
  onChange,
  errors,
  path,
  masked,
}: {
  field: DeclaredFieldHints;
  value: FieldValue;
  onChange(value: FieldValue): void;
  errors: FieldErrors;
  /** The field's name in the service's violations, e.g. `ntfy.topic`. */
  path: string;
  /** The masked value the service shows for a stored credential. */
  masked: string | undefined;
}) {
  const input = inputOf(field);
  const label = labelOf(field);
  const error = errors.of(path);
  if (path === 'webhook.secret') {
    return (
      <SigningSecretField
        label={label}
        hint={field.hint}
        value={value as string}
        onChange={onChange}
        error={error}
        masked={masked}
        maxLength={field.schema.maxLength}
      />
    );
  }
  if (input === 'list') {
    return (
      <TagInput
        label={label}
        tags={value as string[]}
        onChange={onChange}
        error={error}
        hint={[field.hint, 'Press Enter or type a comma after each.'].filter(Boolean).join(' ')}
      />
    );
  }
  if (input === 'map') {
    const item = itemOf(field);
    const placeholders = rowPlaceholdersOf(field);
    return (
      <KeyValueEditor
        legend={label}
        item={item}
        field={path}
        rows={value as KeyValueRow[]}
        onChange={onChange}
        errors={errors}
        hint={field.hint}
        namePlaceholder={placeholders.name}
        valuePlaceholder={placeholders.value}
        keptHint={
          field.credential
            ? `Hidden by the service. Changing the ${field.label.toLowerCase()} replaces them all: type this value again, or leave every ${item.toLowerCase()} as it is.`
            : undefined
        }
      />
    );
  }
  return (
    <DeclaredField
      field={field}
      label={label}
      hint={masked ? `Stored and hidden (${masked}). Leave empty to keep it.` : hintOf(field)}
      error={error}
      value={value as string | boolean}
      onChange={onChange}
    />
  );
}

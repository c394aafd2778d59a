import { type FormEvent, useId, useRef, useState } from 'react';
import type { Subscriber } from '../../../proto/gen/status_page/v1/status_page_pb.js';
import type { ApiError } from '../api.ts';
import { ActionsTable, ConfirmDialog, ErrorNote, Loading, SecretOnce } from '../components.tsx';
import { Field, FormProblems, matchViolations, useFocusOnRefusal } from '../forms.tsx';
import { useAddSubscriber, useRemoveSubscriber, useSubscribers } from '../data/pages.ts';
import { useSession } from '../data/session.ts';
import { asApiError, loadedOf, useConfirmedAction } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { EmailNotSetUp } from '../email-notice.tsx';
import { When } from '../time.tsx';
import { FormActions, isoOf, type PageSectionProps } from './page-form-parts.tsx';

type Kind = 'email' | 'webhook';

export function PageSubscribersSection({ workspaceId, page }: PageSectionProps) {
  const subscribers = loadedOf(useSubscribers(workspaceId, page.id));
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ address: string; secret: string }>();
  const addSubscriber = useAddSubscriber(workspaceId);
  const removeSubscriber = useRemoveSubscriber(workspaceId);
  const remove = useConfirmedAction(
    (s: Subscriber) => removeSubscriber.mutateAsync({ id: s.id }),
    async () => undefined,
  );

  // The session says whether the service has a mail server (Settings, General, Email).
  const emailAvailable = useSession(true).data?.emailAvailable ?? true;
  const empty = subscribers.state === 'ready' && subscribers.value.length === 0;
  return (
    <section aria-labelledby="subscribers-heading" className="section">
      <div className="section-head">
        <h2 id="subscribers-heading">Subscribers</h2>
        {adding ? null : (
          <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
            <Icon name="plus" />
            Add a subscriber
          </button>
        )}
      </div>
      <p className="muted section-lede">
        Subscribers hear of status reports and maintenance when you publish them with “Notify subscribers”. Visitors can subscribe by email on the public page
        when the service has a mail server; an address added here is also asked to confirm first. A webhook receives each notice as a signed JSON POST.
      </p>

      {emailAvailable ? null : (
        <EmailNotSetUp>Email is not set up on this service: neither you nor visitors can add email subscribers until it is. Webhooks work.</EmailNotSetUp>
      )}
      {adding ? (
        <AddSubscriberForm
          emailAvailable={emailAvailable}
          onCancel={() => setAdding(false)}
          onSubmit={async (target) => {
            const answer = await addSubscriber.mutateAsync({ pageId: page.id, target });
            setAdding(false);
            if (answer.webhookSecret) setSecret({ address: answer.subscriber!.address, secret: answer.webhookSecret });
          }}
        />
      ) : null}
      {secret ? (
        <SecretOnce heading={<>Webhook {secret.address} added</>} level={3} label="Signing secret" secret={secret.secret} onDone={() => setSecret(undefined)}>
          Each notice carries an <code>x-statusdesk-signature</code> header: an HMAC-SHA256 keyed with this secret. Copy it now for the receiver; it is not
          shown again.
        </SecretOnce>
      ) : null}

      {subscribers.state === 'loading' ? <Loading what="subscribers" /> : null}
      {subscribers.state === 'error' ? <ErrorNote>{subscribers.error.message}</ErrorNote> : null}
      {empty ? (
        <div className="empty">
          <p>
            <strong>No subscribers yet.</strong> Add an email address or a webhook above, or share the public page, whose visitors can subscribe themselves.
          </p>
        </div>
      ) : null}
      {subscribers.state === 'ready' && subscribers.value.length > 0 ? (
        <ActionsTable columns={['Address', 'Kind', 'Status', 'Since', 'Last notice']}>
          {subscribers.value.map((s) => (
            <tr key={s.id}>
              <th scope="row">
                <code>{s.address}</code>
              </th>
              <td>{s.kind === 'webhook' ? 'Webhook' : 'Email'}</td>
              <td>
                {s.status === 'active' ? (
                  <span className="status status-on">Active</span>
                ) : (
                  <span className="status status-off" title="The address has not followed its confirmation link yet.">
                    Waiting for confirmation
                  </span>
                )}
              </td>
              <td>
                <When iso={isoOf(s.confirmedAt ?? s.createdAt)} />
              </td>
              <td>
                <LastDelivery subscriber={s} />
              </td>
              <td className="cell-actions">
                <button type="button" className="button button-small button-danger-quiet" onClick={() => remove.ask(s)}>
                  <Icon name="trash" />
                  Remove<span className="visually-hidden"> {s.address}</span>
                </button>
              </td>
            </tr>
          ))}
        </ActionsTable>
      ) : null}

      <ConfirmDialog {...remove.dialog} title={`Remove the subscriber ${remove.target?.address ?? ''}?`} confirmLabel="Remove subscriber">
        <p>It hears nothing more from this page. It is not told that it was removed.</p>
      </ConfirmDialog>
    </section>
  );
}

/** What became of the latest report or maintenance sent to the subscriber: delivered, or failed and why. */
function LastDelivery({ subscriber }: { subscriber: Subscriber }) {
  const at = isoOf(subscriber.lastDeliveryAt);
  if (at === undefined) return <span className="muted">None sent yet</span>;
  if (subscriber.lastDeliveryError === undefined) {
    return (
      <>
        Delivered <When iso={at} />
      </>
    );
  }
  return (
    <>
      <span className="status status-off">Failed</span> <When iso={at} />
      <div className="small muted">{subscriber.lastDeliveryError}</div>
    </>
  );
}

function AddSubscriberForm({
  emailAvailable,
  onCancel,
  onSubmit,
}: {
  /** Whether the service has a mail server: without one, email is not offered as a field that would be refused. */
  emailAvailable: boolean;
  onCancel(): void;
  onSubmit(target: { case: 'email'; value: string } | { case: 'webhookUrl'; value: string }): Promise<void>;
}) {
  const [kind, setKind] = useState<Kind>(emailAvailable ? 'email' : 'webhook');
  const [address, setAddress] = useState('');
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useFocusOnRefusal(form, error);
  const id = useId();
  const errors = matchViolations(error, ['email', 'webhookUrl']);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await onSubmit(kind === 'email' ? { case: 'email', value: address.trim() } : { case: 'webhookUrl', value: address.trim() });
    } catch (caught) {
      setError(asApiError(caught));
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby={`${id}-heading`} className="card section">
      <h3 id={`${id}-heading`}>Add a subscriber</h3>
      <form ref={form} className="stack-form" onSubmit={submit} noValidate>
        <FormProblems error={error} errors={errors} />
        <fieldset className="radios radios-inline">
          <legend>Kind</legend>
          <div className="radio">
            <input type="radio" id={`${id}-email`} name={`${id}-kind`} checked={kind === 'email'} onChange={() => setKind('email')} />
            <label htmlFor={`${id}-email`}>Email</label>
          </div>
          <div className="radio">
            <input type="radio" id={`${id}-webhook`} name={`${id}-kind`} checked={kind === 'webhook'} onChange={() => setKind('webhook')} />
            <label htmlFor={`${id}-webhook`}>Webhook</label>
          </div>
        </fieldset>
        {kind === 'email' && !emailAvailable ? (
          <EmailNotSetUp>Email subscribers need a mail server, and this service has none yet.</EmailNotSetUp>
        ) : kind === 'email' ? (
          <Field label="Email address" hint="A confirmation link is mailed to it; nothing else is sent until it is followed." error={errors.of('email')}>
            {(control) => (
              <input {...control} type="email" value={address} autoComplete="off" placeholder="ops@example.com" onChange={(e) => setAddress(e.target.value)} />
            )}
          </Field>
        ) : (
          <Field label="Webhook URL" hint="An http:// or https:// address. Active at once; its signing key is shown once." error={errors.of('webhookUrl')}>
            {(control) => (
              <input
                {...control}
                type="url"
                value={address}
                autoComplete="off"
                placeholder="https://example.com/hooks/status"
                onChange={(e) => setAddress(e.target.value)}
              />
            )}
          </Field>
        )}
        {kind === 'email' && !emailAvailable ? (
          <div className="form-actions">
            <button type="button" className="button button-ghost" onClick={onCancel}>
              Cancel
            </button>
          </div>
        ) : (
          <FormActions busy={busy} submitLabel="Add subscriber" onCancel={onCancel} />
        )}
      </form>
    </section>
  );
}

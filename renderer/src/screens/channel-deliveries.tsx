import type { ChannelDelivery } from '../../../proto/gen/notification/v1/notification_pb.js';
import type { ScreenProps } from '../app.tsx';
import { ActionsTable, ErrorNote, Loading, PageHeader } from '../components.tsx';
import { useChannel, useChannelDeliveries, useSendTest } from '../data/notifications.ts';
import { asApiError, loadedOf } from '../hooks.ts';
import { Icon } from '../icons.tsx';
import { Link } from '../router.tsx';
import { When } from '../time.tsx';
import { channelKindOf } from './channel-form-model.ts';
import { isoOf } from './page-form-parts.tsx';
import { useState } from 'react';
import './channel-deliveries.css';

// A channel's delivery log: its latest deliveries (alerts and tests), how each ended and what the
// receiver answered, as the service keeps them (the latest 100, the answers cleaned of the
// channel's credentials). Linked from each channel of the Notifications screen.

const RESULT_WORDS: Record<string, string> = { delivered: 'Delivered', failed: 'Failed', retrying: 'Retrying' };

/** `monitor.down` as people say it; `test` as a test. */
function eventWords(event: string): string {
  if (event === 'test') return 'Test';
  const kind = event.replace(/^monitor\./, '');
  return { down: 'Down', recovered: 'Recovered', degraded: 'Degraded', tool_drift: 'Tools changed' }[kind] ?? event;
}

export function ChannelDeliveriesScreen({ workspace, params }: ScreenProps) {
  const id = params.id ?? '';
  const channel = loadedOf(useChannel(workspace.id, id));
  const deliveries = loadedOf(useChannelDeliveries(workspace.id, id));
  const sendTest = useSendTest(workspace.id);
  const [testError, setTestError] = useState<string>();

  if (channel.state === 'loading') return <Loading what="the channel" />;
  if (channel.state === 'error' || !channel.value) {
    return (
      <>
        <PageHeader title="Delivery log">
          <Link to="/notifications">All channels</Link>
        </PageHeader>
        <ErrorNote>{channel.state === 'error' ? channel.error.message : `Channel ${id} was not found.`}</ErrorNote>
      </>
    );
  }
  const ch = channel.value;
  const test = async () => {
    setTestError(undefined);
    try {
      await sendTest.mutateAsync({ id: ch.id });
    } catch (error) {
      setTestError(asApiError(error).message);
    }
  };
  return (
    <div className="channel-deliveries">
      <PageHeader
        title={`Delivery log of ${ch.name}`}
        actions={
          <button type="button" className="button" disabled={sendTest.isPending} onClick={() => void test()}>
            <Icon name="bell" />
            {sendTest.isPending ? 'Sending…' : 'Send test'}
          </button>
        }
      >
        <Link to="/notifications">Notifications</Link> · {channelKindOf(ch.kind)?.label ?? ch.kind} channel. Its latest 100 deliveries, newest first: what was
        sent, how it ended and what the receiver answered (credentials of the channel are never shown).
      </PageHeader>
      {testError ? <ErrorNote>{testError}</ErrorNote> : null}
      <section aria-labelledby="deliveries-heading" className="section">
        <h2 id="deliveries-heading">Deliveries</h2>
        {deliveries.state === 'loading' ? <Loading what="the delivery log" /> : null}
        {deliveries.state === 'error' ? <ErrorNote>{deliveries.error.message}</ErrorNote> : null}
        {deliveries.state === 'ready' && deliveries.value.length === 0 ? (
          <div className="empty">
            <p>Nothing sent yet. Press Send test to see a delivery and the receiver's answer here.</p>
          </div>
        ) : null}
        {deliveries.state === 'ready' && deliveries.value.length > 0 ? (
          <ActionsTable columns={['Time', 'Event', 'Monitor', 'Result', 'Answer', 'Attempts']}>
            {deliveries.value.map((delivery) => (
              <DeliveryRow key={delivery.id} delivery={delivery} />
            ))}
          </ActionsTable>
        ) : null}
      </section>
    </div>
  );
}

function DeliveryRow({ delivery }: { delivery: ChannelDelivery }) {
  const status = delivery.statusCode;
  return (
    <tr>
      <th scope="row">
        <When iso={isoOf(delivery.at)} />
      </th>
      <td>
        {eventWords(delivery.event)} <code className="muted small">{delivery.event}</code>
      </td>
      <td>
        {delivery.monitorId ? (
          <Link to={`/monitors/${delivery.monitorId}`}>{delivery.monitorName}</Link>
        ) : (
          <span className="muted">{delivery.monitorName}</span>
        )}
      </td>
      <td>
        <span className={`delivery-result delivery-${delivery.result}`}>
          {delivery.result === 'delivered' ? <Icon name="check" /> : delivery.result === 'failed' ? <Icon name="warning" /> : <Icon name="refresh" />}
          {RESULT_WORDS[delivery.result] ?? delivery.result}
        </span>
      </td>
      <td className="delivery-answer">
        {status === undefined ? null : <strong>HTTP {status} </strong>}
        {delivery.response ? <code>{delivery.response}</code> : null}
        {delivery.error ? <small className="delivery-error">{delivery.error}</small> : null}
        {status === undefined && !delivery.response && !delivery.error ? <span className="muted">No answer</span> : null}
      </td>
      <td>{delivery.attempts}</td>
      <td className="cell-actions" />
    </tr>
  );
}

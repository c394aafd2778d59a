import { useEffect } from 'react';
import type { ApiError, ConsentRequest } from '../api.ts';
import { ErrorNote, Loading } from '../components.tsx';
import { useConsentRequest, useShowDecided } from '../data/consent.ts';
import { DecisionForm, RequestFacts } from '../decision.tsx';
import { desktop } from '../desktop.ts';
import { useLocation } from '../router.tsx';
import { relative, useNow } from '../time.tsx';
import { CenteredPage } from './signed-out.tsx';

function errorText(error: ApiError): string {
  if (error.status === 403)
    return 'This request belongs to another browser. Open the address your editor opened in the browser it opened it in, or approve the request from a signed-in Statusdesk window.';
  if (error.status === 404) return 'There is no such request. Start the connection again from your editor.';
  return error.message;
}

export function ConsentScreen() {
  const { query } = useLocation();
  const id = query.get('request');

  useEffect(() => {
    document.title = 'Connect an app · Statusdesk';
  }, []);

  if (!id) {
    return (
      <CenteredPage>
        <h1>Connect an app</h1>
        <p>This address names no request. Start the connection again from your editor.</p>
      </CenteredPage>
    );
  }
  return <ConsentRequestPage id={id} />;
}

/** One request, followed until it is decided (data/consent.ts); once the service says where to, the browser leaves for the app. */
function ConsentRequestPage({ id }: { id: string }) {
  const asked = useConsentRequest(id);
  const showDecided = useShowDecided(id);
  const leaving = asked.data?.redirectTo;

  useEffect(() => {
    if (leaving) location.replace(leaving);
  }, [leaving]);

  // The service restarting is not an answer (it is asked again); anything it says is.
  if (asked.error && asked.error.status !== 0) {
    return (
      <CenteredPage>
        <h1>This request cannot be shown</h1>
        <ErrorNote>{errorText(asked.error)}</ErrorNote>
      </CenteredPage>
    );
  }
  if (!asked.data) {
    return (
      <CenteredPage>
        <Loading what="the request" />
      </CenteredPage>
    );
  }
  if (leaving) {
    return (
      <CenteredPage>
        <h1>Returning to {asked.data.client.name}</h1>
        <p role="status">You can close this window once your editor says it is connected.</p>
      </CenteredPage>
    );
  }

  const pastExpiry = Date.now() >= new Date(asked.data.expiresAt).getTime();
  const request: ConsentRequest = asked.data.status === 'pending' && pastExpiry ? { ...asked.data, status: 'expired' } : asked.data;
  if (request.status !== 'pending') return <Outcome request={request} />;

  const decided = async (result: ConsentRequest) => {
    // The desktop app's consent window has done its job: the app closes it.
    void desktop?.consentDecided(request.id).catch(() => undefined);
    await showDecided(result);
  };

  return (
    <CenteredPage wide>
      <h1>Allow {request.client.name} to use Statusdesk?</h1>
      {/* Any program can register under any name: the person approves knowing that. */}
      <p className="muted">The name “{request.client.name}” is what the app says of itself; Statusdesk has not verified it.</p>
      <RequestFacts request={request} />
      {request.canDecide ? (
        <>
          <p className="match-inline">
            Matching code <code>{request.matchCode}</code>
          </p>
          <DecisionForm request={request} onDecided={decided} />
        </>
      ) : (
        <Waiting request={request} />
      )}
    </CenteredPage>
  );
}

function Waiting({ request }: { request: ConsentRequest }) {
  const now = useNow(1000);
  return (
    <section className="waiting" aria-labelledby="waiting-heading">
      <h2 id="waiting-heading">Approve it where you are signed in</h2>
      <p className="match-code">
        <span className="visually-hidden">Matching code </span>
        {request.matchCode}
      </p>
      <p>
        Approve this code in a signed-in Statusdesk window (Connected apps), in the Statusdesk desktop app, or with{' '}
        <code>statusdesk oauth approve {request.matchCode}</code>. Check that the code there is the code above.
      </p>
      <p className="muted small" role="status">
        <span className="spinner" aria-hidden="true" /> Waiting for your decision: this page continues on its own. The request expires{' '}
        <time dateTime={request.expiresAt}>{relative(request.expiresAt, now)}</time>.
      </p>
    </section>
  );
}

function Outcome({ request }: { request: ConsentRequest }) {
  const name = request.client.name;
  const outcome = {
    approved: ['Approved', `The browser that started this connection continues to ${name} on its own. You can close this window.`],
    denied: ['Denied', `${name} was not given access. You can close this window.`],
    expired: ['This request expired', 'Requests last 10 minutes. Start the connection again from your editor.'],
    completed: ['Done', `This request is finished: ${name} has its answer. You can close this window.`],
    pending: ['', ''],
  }[request.status];
  return (
    <CenteredPage>
      <h1>{outcome[0]}</h1>
      <p role="status">{outcome[1]}</p>
    </CenteredPage>
  );
}

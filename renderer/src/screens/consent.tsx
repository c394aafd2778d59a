import { useEffect, useState } from 'react';
import { api, type ApiError, type ConsentRequest } from '../api.ts';
import { ErrorNote, Loading } from '../components.tsx';
import { DecisionForm, RequestFacts } from '../decision.tsx';
import { desktop } from '../desktop.ts';
import { asApiError } from '../hooks.ts';
import { useLocation } from '../router.tsx';
import { relative, useNow } from '../time.tsx';
import { CenteredPage } from './signed-out.tsx';

/** How often a waiting page asks whether the owner decided. */
const WAITING_POLL_MS = 1000;
/** A page that can decide asks less often: only to notice a decision made elsewhere. */
const DECIDING_POLL_MS = 3000;

type State =
  | { state: 'loading' }
  | { state: 'error'; error: ApiError }
  | { state: 'ready'; request: ConsentRequest }
  | { state: 'leaving'; request: ConsentRequest };

function errorText(error: ApiError): string {
  if (error.status === 403) return 'This request belongs to another browser. Open the address your editor opened in the browser it opened it in, or approve the request from a signed-in Statusdesk window.';
  if (error.status === 404) return 'There is no such request. Start the connection again from your editor.';
  return error.message;
}

export function ConsentScreen() {
  const { query } = useLocation();
  const id = query.get('request');
  const [loaded, setLoaded] = useState<State>({ state: 'loading' });

  useEffect(() => {
    document.title = 'Connect an app · Statusdesk';
  }, []);

  /** Shows a fetched request, or leaves for the client when the service says where to. */
  const show = (request: ConsentRequest) => {
    if (request.redirectTo) {
      setLoaded({ state: 'leaving', request });
      location.replace(request.redirectTo);
      return;
    }
    setLoaded({ state: 'ready', request });
  };

  useEffect(() => {
    if (!id) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const request = await api.consentRequest(id);
        if (stopped) return;
        show(request);
        const pastExpiry = Date.now() >= new Date(request.expiresAt).getTime();
        // A pending request is asked about again until it expires; the last ask, just past
        // the expiry, lets the service say so.
        if (request.status === 'pending' && !request.redirectTo && !pastExpiry) {
          const wait = request.canDecide ? DECIDING_POLL_MS : WAITING_POLL_MS;
          timer = setTimeout(poll, Math.min(wait, Math.max(50, new Date(request.expiresAt).getTime() - Date.now() + 50)));
        } else if (request.status === 'pending' && pastExpiry) {
          setLoaded({ state: 'ready', request: { ...request, status: 'expired' } });
        }
      } catch (error) {
        if (stopped) return;
        const apiError = asApiError(error);
        // The service restarting is not an answer: keep asking; anything it says is.
        if (apiError.status === 0) timer = setTimeout(poll, WAITING_POLL_MS * 2);
        else setLoaded({ state: 'error', error: apiError });
      }
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id]);

  if (!id) {
    return (
      <CenteredPage>
        <h1>Connect an app</h1>
        <p>This address names no request. Start the connection again from your editor.</p>
      </CenteredPage>
    );
  }
  if (loaded.state === 'loading') {
    return (
      <CenteredPage>
        <Loading what="the request" />
      </CenteredPage>
    );
  }
  if (loaded.state === 'error') {
    return (
      <CenteredPage>
        <h1>This request cannot be shown</h1>
        <ErrorNote>{errorText(loaded.error)}</ErrorNote>
      </CenteredPage>
    );
  }
  if (loaded.state === 'leaving') {
    return (
      <CenteredPage>
        <h1>Returning to {loaded.request.client.name}</h1>
        <p role="status">You can close this window once your editor says it is connected.</p>
      </CenteredPage>
    );
  }

  const request = loaded.request;
  if (request.status !== 'pending') return <Outcome request={request} />;

  const decided = async (result: ConsentRequest) => {
    // The desktop app's consent window has done its job: the app closes it.
    void desktop?.consentDecided(request.id).catch(() => undefined);
    if (result.redirectTo) return show(result);
    // The approving browser may be the one that started the flow: ask for its way back.
    try {
      show(await api.consentRequest(request.id));
    } catch {
      show(result);
    }
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

import { useEffect, useState } from 'react';
import { api, type ApiError, onSignedOut, type Session } from './api.ts';
import { ErrorNote, Loading } from './components.tsx';
import { Frame } from './frame.tsx';
import { asApiError } from './hooks.ts';
import { useLocation } from './router.tsx';
import { ConnectionsScreen } from './screens/connections.tsx';
import { ConsentScreen } from './screens/consent.tsx';
import { KeysScreen } from './screens/keys.tsx';
import { NotFoundScreen } from './screens/not-found.tsx';
import { OverviewScreen } from './screens/overview.tsx';
import { CenteredPage, SignedOutScreen } from './screens/signed-out.tsx';

const WORKSPACE_KEY = 'statusdesk.workspace';

function rememberedWorkspace(): string | null {
  try {
    return localStorage.getItem(WORKSPACE_KEY);
  } catch {
    return null;
  }
}

type SessionState = { state: 'loading' } | { state: 'signed-out'; byUser: boolean } | { state: 'error'; error: ApiError } | { state: 'ready'; session: Session };

export function App() {
  const { path } = useLocation();
  // The consent page stands alone: it is opened by an editor in a browser that is usually not
  // signed in, and decides with its own request's data.
  if (path === '/oauth/consent') return <ConsentScreen />;
  return <Dashboard path={path} />;
}

function Dashboard({ path }: { path: string }) {
  const [session, setSession] = useState<SessionState>({ state: 'loading' });
  const [chosen, setChosen] = useState<string | null>(rememberedWorkspace);

  useEffect(() => onSignedOut(() => setSession({ state: 'signed-out', byUser: false })), []);
  useEffect(() => {
    api.session().then(
      (value) => setSession({ state: 'ready', session: value }),
      (error) => {
        const apiError = asApiError(error);
        setSession(apiError.status === 401 ? { state: 'signed-out', byUser: false } : { state: 'error', error: apiError });
      },
    );
  }, []);

  if (session.state === 'loading') {
    return (
      <CenteredPage>
        <Loading what="Statusdesk" />
      </CenteredPage>
    );
  }
  if (session.state === 'signed-out') return <SignedOutScreen byUser={session.byUser} />;
  if (session.state === 'error') {
    return (
      <CenteredPage>
        <h1>Statusdesk could not load</h1>
        <ErrorNote>{session.error.message}</ErrorNote>
      </CenteredPage>
    );
  }

  const { workspaces } = session.session;
  const workspace = workspaces.find((w) => w.id === chosen) ?? workspaces[0];
  const chooseWorkspace = (id: string) => {
    setChosen(id);
    try {
      localStorage.setItem(WORKSPACE_KEY, id);
    } catch {
      // Not remembered; still switched.
    }
  };
  const signOut = async () => {
    try {
      await api.signOut();
    } catch {
      // Already signed out, or the service is gone: either way this window is signed out.
    }
    setSession({ state: 'signed-out', byUser: true });
  };

  let screen;
  if (path === '/') screen = <OverviewScreen workspace={workspace} />;
  else if (!workspace) screen = <NotFoundScreen title="No workspace">You are not a member of any workspace yet.</NotFoundScreen>;
  else if (path === '/keys') screen = <KeysScreen key={workspace.id} workspace={workspace} />;
  else if (path === '/connections') screen = <ConnectionsScreen key={workspace.id} workspace={workspace} />;
  else screen = <NotFoundScreen title="Page not found">There is no page at {path}.</NotFoundScreen>;

  return (
    <Frame session={session.session} workspace={workspace} onWorkspace={chooseWorkspace} onSignOut={signOut}>
      {screen}
    </Frame>
  );
}

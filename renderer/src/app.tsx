import { type ComponentType, lazy, Suspense, useEffect, useState } from 'react';
import { api, type ApiError, onSignedOut, type Session, type Workspace } from './api.ts';
import { ErrorNote, Loading } from './components.tsx';
import { Frame } from './frame.tsx';
import { asApiError } from './hooks.ts';
import { matchRoute, type Route, useLocation } from './router.tsx';
import { ConsentScreen } from './screens/consent.tsx';
import { NotFoundScreen } from './screens/not-found.tsx';
import { CenteredPage, SignedOutScreen } from './screens/signed-out.tsx';

/** What every screen of a workspace gets: the workspace, and the route's parameters. */
export interface ScreenProps {
  workspace: Workspace;
  params: Record<string, string>;
  /** The signed-in session: the person, their workspaces, and the service's addresses. */
  session: Session;
}

/** A screen loaded on first use, so each screen is its own part of the bundle. */
function screen(load: () => Promise<Record<string, unknown>>, name: string) {
  return lazy(async () => ({ default: (await load())[name] as ComponentType<ScreenProps> }));
}

const SCREENS: Record<Exclude<Route, '/oauth/consent'>, ComponentType<ScreenProps>> = {
  '/': screen(() => import('./screens/overview.tsx'), 'OverviewScreen'),
  '/monitors/new': screen(() => import('./screens/monitor-form.tsx'), 'MonitorFormScreen'),
  '/monitors/:id': screen(() => import('./screens/monitor-detail.tsx'), 'MonitorDetailScreen'),
  '/monitors/:id/edit': screen(() => import('./screens/monitor-form.tsx'), 'MonitorFormScreen'),
  '/pages': screen(() => import('./screens/pages.tsx'), 'PagesScreen'),
  '/pages/:id': screen(() => import('./screens/page-detail.tsx'), 'PageDetailScreen'),
  '/notifications': screen(() => import('./screens/notifications.tsx'), 'NotificationsScreen'),
  '/audit': screen(() => import('./screens/audit.tsx'), 'AuditScreen'),
  '/connect': screen(() => import('./screens/connect-editor.tsx'), 'ConnectEditorScreen'),
  '/keys': screen(() => import('./screens/keys.tsx'), 'KeysScreen'),
  '/connections': screen(() => import('./screens/connections.tsx'), 'ConnectionsScreen'),
};

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

  const matched = matchRoute(path);
  let content;
  if (!workspace) content = <NotFoundScreen title="No workspace">You are not a member of any workspace yet.</NotFoundScreen>;
  else if (!matched || matched.route === '/oauth/consent') content = <NotFoundScreen title="Page not found">There is no page at {path}.</NotFoundScreen>;
  else {
    const Screen = SCREENS[matched.route];
    content = (
      <Suspense fallback={<Loading what="this page" />}>
        <Screen key={`${workspace.id} ${path}`} workspace={workspace} params={matched.params} session={session.session} />
      </Suspense>
    );
  }

  return (
    <Frame session={session.session} workspace={workspace} onWorkspace={chooseWorkspace} onSignOut={signOut}>
      {content}
    </Frame>
  );
}

import { useQueryClient } from '@tanstack/react-query';
import { type ComponentType, lazy, Suspense, useEffect, useLayoutEffect, useState } from 'react';
import type { Session, Workspace } from './api.ts';
import { ErrorNote, Loading } from './components.tsx';
import { asApiError } from './data/api-error.ts';
import { LiveQueries } from './data/live-queries.ts';
import { onSignedOut } from './data/session-fetch.ts';
import { signOut as endSession, startSession, useSession } from './data/session.ts';
import { Frame } from './frame.tsx';
import { DownNotifications } from './live.ts';
import { matchRoute, navigate, type RedirectRoute, redirect, redirectOf, REDIRECTS, type Route, useLocation } from './router.tsx';
import { NotFoundScreen } from './screens/not-found.tsx';
import { CenteredPage, SignedOutScreen } from './screens/signed-out.tsx';
import { isSettingsRoute, SettingsArea } from './settings.tsx';

/** What every screen of a workspace gets: the workspace, and the route's parameters. */
export interface ScreenProps {
  workspace: Workspace;
  params: Record<string, string>;
  /** The signed-in session: the person, their workspaces, and the service's addresses. */
  session: Session;
}

type ScreenRoute = Exclude<Route, '/oauth/consent' | '/invite/:token' | '/signin' | RedirectRoute>;
type ScreenModule = Record<string, unknown>;

/** Each screen is its own part of the bundle, loaded on first use: the module and its component. */
const SCREEN_MODULES: Record<ScreenRoute, [() => Promise<ScreenModule>, string]> = {
  '/': [() => import('./screens/overview.tsx'), 'OverviewScreen'],
  '/monitors/new': [() => import('./screens/monitor-form/monitor-form-screen.tsx'), 'MonitorFormScreen'],
  '/monitors/import': [() => import('./screens/mcp-import.tsx'), 'McpImportScreen'],
  '/monitors/:id': [() => import('./screens/monitor-detail.tsx'), 'MonitorDetailScreen'],
  '/monitors/:id/edit': [() => import('./screens/monitor-form/monitor-form-screen.tsx'), 'MonitorFormScreen'],
  '/pages': [() => import('./screens/pages.tsx'), 'PagesScreen'],
  '/pages/:id': [() => import('./screens/page-detail.tsx'), 'PageDetailScreen'],
  '/notifications': [() => import('./screens/notifications.tsx'), 'NotificationsScreen'],
  '/notifications/:id/deliveries': [() => import('./screens/channel-deliveries.tsx'), 'ChannelDeliveriesScreen'],
  '/locations': [() => import('./screens/locations.tsx'), 'LocationsScreen'],
  '/audit': [() => import('./screens/audit.tsx'), 'AuditScreen'],
  '/connect': [() => import('./screens/connect-editor.tsx'), 'ConnectEditorScreen'],
  '/settings/general/api-keys': [() => import('./screens/keys.tsx'), 'KeysScreen'],
  '/settings/general/email': [() => import('./screens/email-settings.tsx'), 'EmailSettingsScreen'],
  '/settings/general/import-export': [() => import('./screens/import-export.tsx'), 'ImportExportScreen'],
  '/settings/general/members': [() => import('./screens/members.tsx'), 'MembersScreen'],
  '/settings/integrations/connected-apps': [() => import('./screens/connections.tsx'), 'ConnectionsScreen'],
  '/settings/account': [() => import('./screens/account.tsx'), 'AccountScreen'],
};

const isScreenRoute = (route: Route): route is ScreenRoute =>
  route !== '/oauth/consent' && route !== '/invite/:token' && route !== '/signin' && !Object.hasOwn(REDIRECTS, route);

/**
 * A screen that renders at once when its part of the bundle is already loaded, and suspends only
 * when it is not: a suspended screen is shown no sooner than React's fallback throttle allows
 * (about 300 ms), which the first screen, loaded beside the session, need not wait for.
 */
function loadedOnDemand<Props extends object = ScreenProps>([load, name]: [() => Promise<ScreenModule>, string]) {
  let loaded: ComponentType<Props> | undefined;
  let loading: Promise<ComponentType<Props>> | undefined;
  const preload = () =>
    (loading ??= load().then((module) => {
      loaded = module[name] as ComponentType<Props>;
      return loaded;
    }));
  const Suspended = lazy(async () => ({ default: await preload() }));
  function Screen(props: Props) {
    const Loaded = loaded;
    return Loaded ? <Loaded {...props} /> : <Suspended {...props} />;
  }
  return { Screen, preload };
}

const SCREENS = Object.fromEntries(Object.entries(SCREEN_MODULES).map(([route, module]) => [route, loadedOnDemand(module)])) as unknown as Record<
  ScreenRoute,
  ReturnType<typeof loadedOnDemand<ScreenProps>>
>;

/**
 * The consent page, a part of the bundle of its own too: it is opened by an editor in a browser,
 * never beside the dashboard's screens, whose first screen need not carry it.
 */
const CONSENT = loadedOnDemand<object>([() => import('./screens/consent.tsx'), 'ConsentScreen']);

/** The sign-in screen, for people who are not at the server: shown without a session, as the consent page. */
const SIGN_IN = loadedOnDemand<object>([() => import('./screens/sign-in.tsx'), 'SignInScreen']);

/** An invitation link's page: opened by someone who usually has no session here yet. */
const INVITATION = loadedOnDemand<object>([() => import('./screens/accept-invitation.tsx'), 'AcceptInvitationScreen']);

/**
 * Starts what the first screen needs before React's first render rather than after it: the
 * session, and the screen's part of the bundle.
 */
export function startFirstScreen(): void {
  const route = matchRoute(redirectOf(location.pathname) ?? location.pathname)?.route;
  if (route === '/oauth/consent') {
    void CONSENT.preload().catch(() => undefined);
    return;
  }
  if (route === '/signin') {
    void SIGN_IN.preload().catch(() => undefined);
    return;
  }
  if (route === '/invite/:token') {
    void INVITATION.preload().catch(() => undefined);
    return;
  }
  startSession();
  if (route && isScreenRoute(route)) void SCREENS[route].preload().catch(() => undefined);
}

const WORKSPACE_KEY = 'statusdesk.workspace';

function rememberedWorkspace(): string | null {
  try {
    return localStorage.getItem(WORKSPACE_KEY);
  } catch {
    return null;
  }
}

export function App() {
  const { path, query } = useLocation();
  // A path that redirects shows its target's screen at once, and its address follows before the
  // browser paints; the dashboard stays mounted, so the session is not asked for again.
  const target = redirectOf(path);
  useLayoutEffect(() => {
    // The query stays: a link may name the workspace it is about.
    if (target) redirect(`${target}${location.search}`);
  }, [target]);
  // The consent page stands alone: it is opened by an editor in a browser that is usually not
  // signed in, and decides with its own request's data.
  if (path === '/oauth/consent') {
    return (
      <Suspense
        fallback={
          <CenteredPage>
            <Loading what="the request" />
          </CenteredPage>
        }
      >
        <CONSENT.Screen />
      </Suspense>
    );
  }
  if (path === '/signin') {
    return (
      <Suspense
        fallback={
          <CenteredPage>
            <Loading what="the sign-in" />
          </CenteredPage>
        }
      >
        <SIGN_IN.Screen />
      </Suspense>
    );
  }
  if (matchRoute(path)?.route === '/invite/:token') {
    return (
      <Suspense
        fallback={
          <CenteredPage>
            <Loading what="the invitation" />
          </CenteredPage>
        }
      >
        <INVITATION.Screen />
      </Suspense>
    );
  }
  return <Dashboard path={target ?? path} query={query} />;
}

function Dashboard({ path, query }: { path: string; query: URLSearchParams }) {
  /** Set once the window is signed out: by the person, or by a call the service answered 401. */
  const [signedOut, setSignedOut] = useState<{ byUser: boolean }>();
  const [chosen, setChosen] = useState<string | null>(rememberedWorkspace);
  const queryClient = useQueryClient();
  const asked = useSession(signedOut === undefined);

  useEffect(
    () =>
      onSignedOut(() => {
        setSignedOut((already) => already ?? { byUser: false });
        // Nothing of the session stays in the window.
        queryClient.clear();
      }),
    [queryClient],
  );

  const failure = asked.data === undefined && asked.error ? asApiError(asked.error) : undefined;
  if (signedOut || failure?.status === 401) return <SignedOutScreen byUser={signedOut?.byUser ?? false} />;
  if (failure) {
    return (
      <CenteredPage>
        <h1>Statusdesk could not load</h1>
        <ErrorNote>{failure.message}</ErrorNote>
      </CenteredPage>
    );
  }
  if (asked.data === undefined) {
    return (
      <CenteredPage>
        <Loading what="Statusdesk" />
      </CenteredPage>
    );
  }

  const session: Session = asked.data;
  const { workspaces } = session;
  // A link may name the workspace it is about (`?workspace=` id or slug: the desktop app's tray
  // and notifications do); it is shown without changing the one this browser remembers.
  const named = query.get('workspace');
  const linked = named === null ? undefined : workspaces.find((w) => w.id === named || w.slug === named);
  const workspace = linked ?? workspaces.find((w) => w.id === chosen) ?? workspaces[0];
  const chooseWorkspace = (id: string) => {
    setChosen(id);
    // The person's choice wins over the workspace a link named.
    if (named !== null) {
      const rest = new URLSearchParams(query);
      rest.delete('workspace');
      navigate(rest.size ? `${path}?${rest}` : path, { replace: true });
    }
    try {
      localStorage.setItem(WORKSPACE_KEY, id);
    } catch {
      // Not remembered; still switched.
    }
  };
  const signOut = async () => {
    try {
      await endSession();
    } catch {
      // Already signed out, or the service is gone: either way this window is signed out.
    }
    setSignedOut({ byUser: true });
    queryClient.clear();
  };

  const matched = matchRoute(path);
  let content;
  if (!workspace) content = <NotFoundScreen title="No workspace">You are not a member of any workspace yet.</NotFoundScreen>;
  else if (!matched || !isScreenRoute(matched.route)) content = <NotFoundScreen title="Page not found">There is no page at {path}.</NotFoundScreen>;
  else {
    const { Screen } = SCREENS[matched.route];
    content = (
      <Suspense fallback={<Loading what="this page" />}>
        <Screen key={`${workspace.id} ${path}`} workspace={workspace} params={matched.params} session={session} />
      </Suspense>
    );
    // The settings screens share the settings area's navigation, which stays while they change.
    if (isSettingsRoute(matched.route)) content = <SettingsArea>{content}</SettingsArea>;
  }

  return (
    <Frame session={session} workspace={workspace} onWorkspace={chooseWorkspace} onSignOut={signOut}>
      {workspace ? <DownNotifications key={workspace.id} workspaceId={workspace.id} /> : null}
      {workspace ? <LiveQueries key={workspace.id} workspaceId={workspace.id} /> : null}
      {content}
    </Frame>
  );
}

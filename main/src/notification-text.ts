// The words of the app's native notifications, and the dashboard path a click opens. Monitor and
// app names come from whoever created them (an app names itself when it registers), so each is one
// line of bounded length, and an app's name is quoted as what it calls itself, never as a fact.
import type { ConsentMessage, DesktopAlert } from '../../server/desktop/host-protocol.ts';
import { oneLine } from './tray.ts';

export interface NotificationText {
  title: string;
  body: string;
  /** The dashboard path a click on the notification opens. */
  path: string;
}

type ConsentRequest = ConsentMessage['request'];

const MAX_BODY = 200;

const ALERT_TITLES: Record<DesktopAlert['kind'], string> = {
  down: 'is down',
  recovered: 'is up again',
  degraded: 'is degraded',
  tool_drift: 'changed its tools',
};

export function alertNotification(alert: DesktopAlert): NotificationText {
  const message = oneLine(alert.message, MAX_BODY);
  const workspace = oneLine(alert.workspaceName);
  const body = message === '' ? `In ${workspace}` : `${message} (${workspace})`;
  // A channel's Send test: no monitor changed, so a click opens the channels.
  if (alert.test) return { title: 'Statusdesk test alert', body, path: '/notifications' };
  return {
    // The service's headline says how long a monitor was down, or which monitors a grouped alert names.
    title: alert.headline ? oneLine(alert.headline) : `${oneLine(alert.monitorName)} ${ALERT_TITLES[alert.kind]}`,
    body,
    // In its own workspace, whichever the window shows.
    path: `/monitors/${encodeURIComponent(alert.monitorId)}?workspace=${encodeURIComponent(alert.workspaceSlug)}`,
  };
}

/** The access as the consent page names it (Read only, Read & write). */
const ACCESS_TEXT: Record<ConsentRequest['access'], string> = {
  read: 'read-only access',
  write: 'read & write access',
};

export function consentNotification(request: ConsentRequest): NotificationText {
  // Without quote marks of its own, a name cannot close the quote and go on as the app's text.
  const name = oneLine(request.clientName.replace(/["“”]/g, ''), 40);
  return {
    title: 'An app asks to connect to Statusdesk',
    body: `“${name}” asks for ${ACCESS_TEXT[request.access]}. Allow it only if the page your editor opened shows the code ${oneLine(request.matchCode, 9)}.`,
    path: `/oauth/consent?request=${encodeURIComponent(request.id)}`,
  };
}

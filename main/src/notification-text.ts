// The words of the app's native notifications, and the dashboard path a click opens. Monitor and
// app names come from whoever created them (an app names itself when it registers), so each is one
// line of bounded length, and an app's name is quoted as what it calls itself, never as a fact.
import { oneLine } from './tray.ts';

export interface NotificationText {
  title: string;
  body: string;
  /** The dashboard path a click on the notification opens. */
  path: string;
}

/** What the text reads of the host's alert. */
export interface AlertFacts {
  kind: 'down' | 'recovered' | 'degraded';
  monitorId: string | number;
  monitorName: string;
  workspaceName: string;
  message: string;
}

/** What the text reads of a pending consent request. */
export interface ConsentFacts {
  id: string;
  matchCode: string;
  clientName: string;
  access: 'read' | 'write';
}

const MAX_BODY = 200;

const ALERT_TITLES: Record<AlertFacts['kind'], string> = {
  down: 'is down',
  recovered: 'is up again',
  degraded: 'is degraded',
};

export function alertNotification(alert: AlertFacts): NotificationText {
  const message = oneLine(alert.message, MAX_BODY);
  return {
    title: `${oneLine(alert.monitorName)} ${ALERT_TITLES[alert.kind]}`,
    body: message === '' ? `In ${oneLine(alert.workspaceName)}` : `${message} (${oneLine(alert.workspaceName)})`,
    path: `/monitors/${encodeURIComponent(String(alert.monitorId))}`,
  };
}

/** The access as the consent page names it (Read only, Read & write). */
const ACCESS_TEXT: Record<ConsentFacts['access'], string> = {
  read: 'read-only access',
  write: 'read & write access',
};

export function consentNotification(request: ConsentFacts): NotificationText {
  // Without quote marks of its own, a name cannot close the quote and go on as the app's text.
  const name = oneLine(request.clientName.replace(/["“”]/g, ''), 40);
  return {
    title: 'An app asks to connect to Statusdesk',
    body: `“${name}” asks for ${ACCESS_TEXT[request.access]}. Allow it only if the page your editor opened shows the code ${oneLine(request.matchCode, 9)}.`,
    path: `/oauth/consent?request=${encodeURIComponent(request.id)}`,
  };
}

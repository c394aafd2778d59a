// The preload's narrow API: three channels, each payload validated here before main/ acts on it,
// and answered only for frames of the dashboard's own origin. A page of any other origin (one a
// link took the window to by mistake, an iframe) gets nothing.
import { z } from 'zod';
import { CONSENT_REQUEST_ID } from './deep-links.ts';
import { IPC } from './ipc-channels.ts';

export { IPC };

export type IpcChannel = (typeof IPC)[keyof typeof IPC];

const MAX_URL_LENGTH = 2048;

const isHttpUrl = (value: string) => URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol);

const OpenExternalPayload = z.string().max(MAX_URL_LENGTH).refine(isHttpUrl, 'an http or https address');
const ConsentDecidedPayload = z.string().regex(CONSENT_REQUEST_ID, 'a consent request id');

/** The address of an openExternal call; throws for anything but an http(s) address of sane length. */
export function openExternalPayload(payload: unknown): string {
  return OpenExternalPayload.parse(payload);
}

/** The request id of a consentDecided call; throws for anything but a consent request id. */
export function consentDecidedPayload(payload: unknown): string {
  return ConsentDecidedPayload.parse(payload);
}

/** Only a frame showing the dashboard's exact origin (scheme, host and port) may call main/. */
export function isTrustedSender(senderUrl: string, dashboardOrigin: string): boolean {
  if (dashboardOrigin === '' || !URL.canParse(senderUrl)) return false;
  const sender = new URL(senderUrl);
  return sender.origin !== 'null' && sender.origin === dashboardOrigin && sender.username === '' && sender.password === '';
}

import type { DestinationPolicy } from '../domain/destinations.ts';
import { parseSmtpUrl, sendOnce, type SmtpServer } from './mail.ts';

/**
 * The email settings' test send: one message to the address a person gave, over a connection of
 * its own to the relay in effect, so the answer is the server's to this message (not a pooled
 * connection's from before the settings changed).
 */
export function sendTestMail(relay: string | SmtpServer, from: string, to: string, destinations?: DestinationPolicy): Promise<string> {
  const server = typeof relay === 'string' ? parseSmtpUrl(relay) : relay;
  const text = [
    'This is a test message from Statusdesk.',
    '',
    `It left by ${server.host}:${server.port}, the mail server of the service's email settings: subscriber mail and email alerts go the same way.`,
  ].join('\n');
  const html = `<p>This is a test message from Statusdesk.</p><p>It left by the mail server of the service's email settings: subscriber mail and email alerts go the same way.</p>`;
  return sendOnce(server, { from, to: [to], subject: 'Statusdesk test message', text, html }, destinations);
}

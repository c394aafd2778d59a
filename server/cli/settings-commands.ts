import { text } from 'node:stream/consumers';
import type { settingsV1 } from '../../client/index.ts';
import { EMAIL_SECURITY } from '../domain/email-settings/email-settings-rules.ts';
import { isoOf } from '../rpc/monitor-codec.ts';
import { emailSecurity } from '../rpc/settings-codec.ts';
import { type Command, connection, int32, oneOf, printFields, str } from './flags.ts';
import { printJson, UsageError } from './output.ts';
import { client } from './service-client.ts';

/**
 * `statusdesk settings email ...`: the service's email settings (the SMTP server and the sender),
 * through the client library (settings.v1). The password is never printed, only whether one is
 * set; `test` sends a message and prints what the mail server answered.
 */

/** The settings in the words of the flags: the password only as set or not. */
const emailWords = (shown: settingsV1.GetEmailSettingsResponse) => ({
  available: shown.available,
  smtpUrlFromEnvironment: shown.smtpUrlFromEnvironment,
  mailFromFromEnvironment: shown.mailFromFromEnvironment,
  stored: shown.stored
    ? {
        host: shown.stored.host,
        port: shown.stored.port,
        security: emailSecurity.domain(shown.stored.security) ?? null,
        username: shown.stored.username || null,
        passwordSet: shown.stored.passwordSet,
        from: shown.stored.from,
        updatedAt: isoOf(shown.stored.updatedAt),
      }
    : null,
});

function showEmail(json: boolean, shown: settingsV1.GetEmailSettingsResponse): void {
  const words = emailWords(shown);
  if (json) return printJson(words);
  const stored = words.stored;
  printFields([
    ['email', words.available ? 'available' : 'not set up'],
    ['mail server', words.smtpUrlFromEnvironment ? 'set by the environment (STATUSDESK_SMTP_URL)' : stored ? `${stored.host}:${stored.port}` : null],
    ['security', words.smtpUrlFromEnvironment ? null : stored?.security],
    ['username', words.smtpUrlFromEnvironment ? null : stored?.username],
    ['password', words.smtpUrlFromEnvironment || !stored ? null : stored.passwordSet ? 'set (never shown)' : 'none'],
    ['from', words.mailFromFromEnvironment ? 'set by the environment (STATUSDESK_MAIL_FROM)' : stored?.from],
    ['saved', stored?.updatedAt],
  ]);
}

const emailShow: Command = {
  usage: 'settings email show [--api-url URL] [--json]',
  summary: "show the service's email settings (never the password)",
  options: connection,
  async run(values) {
    showEmail(Boolean(values.json), await client(values).settings.getEmailSettings({}));
  },
};

const emailSet: Command = {
  usage:
    'settings email set --host HOST --port N --security none|starttls|tls --from ADDRESS [--username USER] [--password PASSWORD | --password-stdin | --no-password] [--api-url URL] [--json]',
  summary: "save the service's email settings (the environment's STATUSDESK_SMTP_URL wins when set)",
  options: {
    ...connection,
    host: { type: 'string', valueName: 'HOST', description: 'the SMTP server, e.g. smtp.example.com' },
    port: { type: 'string', valueName: 'N', description: 'its port, 1 to 65535 (587 or 465 as a rule)' },
    security: { type: 'string', valueName: 'MODE', description: 'none, starttls (required) or tls (from the start)' },
    username: { type: 'string', valueName: 'USER', description: 'the user name to log in with (none: no login)' },
    password: { type: 'string', valueName: 'PASSWORD', description: 'the password (left out: the saved one stays); stored sealed' },
    'password-stdin': { type: 'boolean', description: 'read the password from standard input, not the command line' },
    'no-password': { type: 'boolean', description: 'remove the saved password' },
    from: { type: 'string', valueName: 'ADDRESS', description: 'the sender, e.g. "Status <status@example.com>"' },
  },
  fields: { host: '--host', port: '--port', security: '--security', username: '--username', password: '--password', from: '--from' },
  async run(values) {
    const given = [str(values, 'password') !== undefined, Boolean(values['password-stdin']), Boolean(values['no-password'])].filter(Boolean).length;
    if (given > 1) throw new UsageError('give one of --password, --password-stdin and --no-password');
    const password = values['password-stdin'] ? (await text(process.stdin)).replace(/\r?\n$/, '') : values['no-password'] ? '' : str(values, 'password');
    const security = str(values, 'security');
    const response = await client(values).settings.updateEmailSettings({
      host: str(values, 'host') ?? '',
      port: int32('port', str(values, 'port')) ?? 0,
      security: security === undefined ? 0 : emailSecurity.wire(oneOf('security', security, EMAIL_SECURITY)),
      username: str(values, 'username') ?? '',
      ...(password === undefined ? {} : { password }),
      from: str(values, 'from') ?? '',
    });
    showEmail(Boolean(values.json), response.settings!);
  },
};

const emailTest: Command = {
  usage: 'settings email test --to ADDRESS [--api-url URL] [--json]   (exit 1 when not delivered)',
  summary: "send a test email through the service's mail server and print what it answered; exit 1 when not delivered",
  options: { ...connection, to: { type: 'string', valueName: 'ADDRESS', description: 'where to send it' } },
  fields: { to: '--to' },
  async run(values) {
    const response = await client(values).settings.sendTestEmail({ to: str(values, 'to') ?? '' });
    if (values.json) {
      printJson({ delivered: response.delivered, answer: response.answer });
      return response.delivered ? 0 : 1;
    }
    if (response.delivered) {
      process.stdout.write(`delivered: the mail server answered ${response.answer}\n`);
      return 0;
    }
    process.stderr.write(`statusdesk: not delivered: ${response.answer}\n`);
    return 1;
  },
};

export const settingsCommands: Record<string, Command> = {
  'settings email show': emailShow,
  'settings email set': emailSet,
  'settings email test': emailTest,
};

import type { MessageInitShape } from '@bufbuild/protobuf';
import { EmailSecurity, type GetEmailSettingsResponseSchema } from '../../proto/gen/settings/v1/settings_pb.js';
import type { EmailSettingsView } from '../domain/email-settings/email-settings.ts';
import { EMAIL_SECURITY } from '../domain/email-settings/email-settings-rules.ts';
import { enumPairs } from './enum-pairs.ts';
import { timestamp } from './page-codec.ts';

/** settings.v1's email security, both ways. */
export const emailSecurity = enumPairs(EMAIL_SECURITY, [EmailSecurity.NONE, EmailSecurity.STARTTLS, EmailSecurity.TLS]);

/** The email settings as the wire carries them: the password only as whether one is set. */
export function toEmailSettingsMessage(view: EmailSettingsView): MessageInitShape<typeof GetEmailSettingsResponseSchema> {
  const stored = view.stored;
  return {
    available: view.available,
    smtpUrlFromEnvironment: view.environment.smtpUrl,
    mailFromFromEnvironment: view.environment.mailFrom,
    ...(stored && {
      stored: {
        host: stored.host,
        port: stored.port,
        security: emailSecurity.wire(stored.security),
        username: stored.username,
        passwordSet: stored.passwordSet,
        from: stored.from,
        updatedAt: timestamp(stored.updatedAt),
      },
    }),
  };
}

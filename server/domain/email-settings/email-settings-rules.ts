import { z } from 'zod';
import { EMAIL_SETTINGS_LIMITS } from '../../../contract/limits.ts';
import { builtOnFirstUse, expected } from '../validation.ts';

/** How the connection to the mail server is protected: never, STARTTLS (required), or TLS from the start. */
export const EMAIL_SECURITY = ['none', 'starttls', 'tls'] as const;
export type EmailSecurity = (typeof EMAIL_SECURITY)[number];

const address = () => z.email('must be an email address').max(254, 'must be at most 254 characters');

/**
 * A sender as mail writes it: an address (`status@example.com`), or a name and an address
 * (`Status <status@example.com>`).
 */
const sender = () =>
  z
    .string(expected('an email address, or a name and an address like Status <status@example.com>'))
    .trim()
    .min(1, 'is required: an email address, or a name and an address like Status <status@example.com>')
    .max(300, 'must be at most 300 characters')
    .refine(
      (text) => {
        const named = /^([^<>\r\n]*)<([^<>\s]+)>$/.exec(text);
        return address().safeParse(named ? named[2] : text).success;
      },
      { message: 'must be an email address, or a name and an address like Status <status@example.com>' },
    );

/** A host name or an IP address, as written in a mail client's settings: no scheme, no port, no spaces. */
const host = () =>
  z
    .string(expected('a host name or IP address, like smtp.example.com'))
    .trim()
    .min(1, 'is required: a host name or IP address, like smtp.example.com')
    .max(253, 'must be at most 253 characters')
    .regex(/^(\[[0-9A-Fa-f:.]+\]|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*|[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?)$/, {
      message: 'must be a host name or IP address, like smtp.example.com (no scheme, no port)',
    });

export const emailSettingsInput = builtOnFirstUse(() =>
  z.strictObject({
    host: host(),
    port: z
      .number(expected(`a whole number from 1 to ${EMAIL_SETTINGS_LIMITS.port.max}`))
      .int(`must be a whole number from 1 to ${EMAIL_SETTINGS_LIMITS.port.max}`)
      .min(1, `must be a whole number from 1 to ${EMAIL_SETTINGS_LIMITS.port.max}`)
      .max(EMAIL_SETTINGS_LIMITS.port.max, `must be a whole number from 1 to ${EMAIL_SETTINGS_LIMITS.port.max}`),
    security: z.enum(EMAIL_SECURITY, { error: `must be one of ${EMAIL_SECURITY.join(', ')}` }),
    username: z
      .string(expected('a user name'))
      .trim()
      .max(EMAIL_SETTINGS_LIMITS.username.max, `must be at most ${EMAIL_SETTINGS_LIMITS.username.max} characters`)
      .optional(),
    /** Absent: the stored password stays; empty: none. */
    password: z
      .string(expected('a password'))
      .max(EMAIL_SETTINGS_LIMITS.password.max, `must be at most ${EMAIL_SETTINGS_LIMITS.password.max} characters`)
      .optional(),
    from: sender(),
  }),
);

export const testAddress = builtOnFirstUse(() => z.strictObject({ to: address() }));

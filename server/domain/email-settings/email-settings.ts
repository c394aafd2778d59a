import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { Database, EmailSettingsRow } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import { authorize } from '../access.ts';
import type { Actor } from '../actor.ts';
import { recordAudit } from '../audit/audit.ts';
import type { DestinationPolicy } from '../destinations.ts';
import type { Sealer } from '../sealing.ts';
import { invalid, parseInput } from '../validation.ts';
import { findEmailSettingsRow, saveEmailSettingsRow } from './email-settings-repository.ts';
import { type EmailSecurity, emailSettingsInput, testAddress } from './email-settings-rules.ts';

/**
 * The service's email settings: the SMTP server that subscriber mail and email channels without
 * their own server leave by, and the sender. One set for the whole service, stored in the database
 * (the password sealed, never returned), changed by owners and admins (and write keys) of a
 * workspace, each change audited in that workspace without the password. STATUSDESK_SMTP_URL and
 * STATUSDESK_MAIL_FROM, when set, win over what is stored: setups made with them stay as they are.
 */

/** The stored settings as every surface shows them: the password only as whether one is set. */
export interface EmailSettings {
  host: string;
  port: number;
  security: EmailSecurity;
  username: string;
  passwordSet: boolean;
  from: string;
  updatedAt: string;
}

/** What the settings screen shows: whether email can be sent, what the environment sets, what is stored. */
export interface EmailSettingsView {
  /** Whether email can be sent: a mail server is set by the environment or stored. */
  available: boolean;
  /** Which settings the environment sets (they win, and cannot be changed here). */
  environment: { smtpUrl: boolean; mailFrom: boolean };
  /** The stored settings; null until someone saves them. */
  stored: EmailSettings | null;
}

/** The stored settings with the password opened: for the delivery only, never a surface. */
export interface StoredEmailRelay {
  host: string;
  port: number;
  security: EmailSecurity;
  username: string;
  password: string;
  from: string;
  /** Changes with every save: a new pool of connections for new settings. */
  stamp: string;
}

export interface EmailSettingsDeps {
  sealer: Sealer;
  destinations: DestinationPolicy;
  /** Whether STATUSDESK_SMTP_URL and STATUSDESK_MAIL_FROM are set. */
  environment: { smtpUrl: boolean; mailFrom: boolean };
  /** Whether email can be sent now (the environment's relay, or the stored settings). */
  available(): Promise<boolean>;
  /** Sends a test message to `to` through the relay in effect; resolves with the server's answer, rejects naming why. */
  sendTest(to: string): Promise<string>;
  /** The stored settings changed: the delivery reads them again. */
  changed(): Promise<void>;
}

const toSettings = (row: EmailSettingsRow): EmailSettings => ({
  host: row.host,
  port: Number(row.port),
  security: row.security,
  username: row.username ?? '',
  passwordSet: row.password !== null,
  from: row.from_address,
  updatedAt: row.updated_at,
});

/** What the audit log keeps: every setting but the password, which shows only as set, not set or replaced. */
function snapshot(settings: EmailSettings, password: 'set' | 'not set' | 'replaced') {
  const { passwordSet: _passwordSet, updatedAt: _updatedAt, ...rest } = settings;
  return { ...rest, password };
}

export function createEmailSettingsService(db: Kysely<Database>, deps: EmailSettingsDeps) {
  async function get(actor: Actor, workspaceId: number): Promise<EmailSettingsView> {
    await authorize(db, actor, workspaceId, 'admin');
    const row = await findEmailSettingsRow(db);
    return { available: await deps.available(), environment: deps.environment, stored: row ? toSettings(row) : null };
  }

  return {
    get,

    /**
     * Saves the settings. The password: absent keeps the stored one, empty removes it. The mail
     * server must be one the service may connect to (domain/destinations.ts). An unchanged save
     * changes nothing and records nothing.
     */
    async set(actor: Actor, workspaceId: number, input: z.input<ReturnType<typeof emailSettingsInput>>): Promise<EmailSettingsView> {
      await authorize(db, actor, workspaceId, 'admin');
      if (deps.environment.smtpUrl) {
        throw new AppError(
          'PRECONDITION_FAILED',
          "the mail server is set by the environment (STATUSDESK_SMTP_URL), which wins over stored settings: change it there, or unset it to manage email in the service's settings",
        );
      }
      const values = parseInput(emailSettingsInput(), input);
      const host = values.host.replace(/^\[|\]$/g, '');
      const refused = deps.destinations.refusalAsWritten(host, values.port);
      if (refused) throw invalid('host', refused);
      await writeTransaction(db, async (trx) => {
        const current = await findEmailSettingsRow(trx);
        const password = values.password === undefined ? (current?.password ?? null) : values.password === '' ? null : deps.sealer.seal(values.password);
        const replaced = values.password !== undefined && values.password !== '' && current?.password !== null && current !== undefined;
        const unchangedPassword = values.password === undefined || (values.password === '' && !current?.password);
        const next = {
          host,
          port: values.port,
          security: values.security,
          username: values.username ? values.username : null,
          password,
          from_address: values.from,
          updated_at: new Date().toISOString(),
        };
        if (
          current &&
          unchangedPassword &&
          current.host === next.host &&
          Number(current.port) === next.port &&
          current.security === next.security &&
          current.username === next.username &&
          current.from_address === next.from_address
        ) {
          return;
        }
        const saved = await saveEmailSettingsRow(trx, next);
        const after = toSettings(saved);
        await recordAudit(trx, {
          workspaceId,
          entityType: 'email_settings',
          entityId: 'service',
          action: current ? 'email_settings.update' : 'email_settings.create',
          actor,
          before: current ? snapshot(toSettings(current), current.password ? 'set' : 'not set') : null,
          after: snapshot(after, replaced ? 'replaced' : after.passwordSet ? 'set' : 'not set'),
        });
      });
      await deps.changed();
      return get(actor, workspaceId);
    },

    /**
     * Sends a test message to `to` through the mail server in effect (the environment's, or the
     * stored settings), and says what the server answered: `delivered` false with the reason when
     * it refused or could not be reached.
     */
    async sendTest(actor: Actor, workspaceId: number, to: unknown): Promise<{ delivered: boolean; answer: string }> {
      await authorize(db, actor, workspaceId, 'admin');
      const values = parseInput(testAddress(), { to: typeof to === 'string' ? to.trim() : to });
      if (!(await deps.available())) {
        throw new AppError('PRECONDITION_FAILED', 'no mail server is set up: save the email settings first, or set STATUSDESK_SMTP_URL for the service');
      }
      try {
        return { delivered: true, answer: await deps.sendTest(values.to) };
      } catch (error) {
        if (error instanceof AppError) throw error;
        return { delivered: false, answer: error instanceof Error ? error.message : String(error) };
      }
    },

    /** The stored settings with the password opened, for the delivery; undefined when none are stored. */
    async storedRelay(): Promise<StoredEmailRelay | undefined> {
      const row = await findEmailSettingsRow(db);
      if (!row) return undefined;
      return {
        host: row.host,
        port: Number(row.port),
        security: row.security,
        username: row.username ?? '',
        password: row.password ? deps.sealer.open<string>(row.password) : '',
        from: row.from_address,
        stamp: row.updated_at,
      };
    },
  };
}

export type EmailSettingsService = ReturnType<typeof createEmailSettingsService>;

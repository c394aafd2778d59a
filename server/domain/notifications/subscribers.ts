import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema.ts';
import { writeTransaction } from '../../db/transaction.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Actor } from '../actor.ts';
import { authorize } from '../access.ts';
import { recordAudit } from '../audit/audit.ts';
import { findPageById, findPageBySlug, type PageRow } from '../pages/page-repository.ts';
import { resolvePage, toPage } from '../pages/pages.ts';
import { planOfWorkspace } from '../plans.ts';
import { newSecret } from '../secrets.ts';
import type { Sealer } from '../sealing.ts';
import { builtOnFirstUse, httpUrl, idOf, invalid, parseId, parseInput } from '../validation.ts';
import { createDestinationPolicy, type DestinationPolicy } from '../destinations.ts';
import { maskCredential } from './channel-rules.ts';
import { reasonOf } from './channels.ts';
import type { PageEvent, PageRef } from './events.ts';
import {
  activateSubscriber,
  deletePendingBefore,
  deleteSubscriber,
  findEmailSubscriber,
  findSubscriber,
  hasActiveEmailSubscribers,
  insertPendingEmail,
  insertWebhook,
  listActiveSubscriberRows,
  listSubscriberRows,
  markConfirmationSent,
  recordDeliveries,
  type SubscriberRow,
} from './subscriber-repository.ts';

export interface Subscriber {
  id: string;
  pageId: string;
  kind: 'email' | 'webhook';
  /** The email address, or the webhook URL masked. */
  address: string;
  status: 'pending' | 'active';
  createdAt: string;
  confirmedAt: string | null;
  /** When the last page event to it ended, delivered or not; null before the first. */
  lastDeliveryAt: string | null;
  /** Why that delivery failed; null when it was delivered. */
  lastDeliveryError: string | null;
}

/** Where a page event goes: an email subscriber with its own unsubscribe link, or a webhook with its signing secret. */
export type SubscriberAddress = { kind: 'email'; address: string; unsubscribeUrl: string } | { kind: 'webhook'; url: string; secret: string };

/** One subscriber a dispatch tells: its id, and its address, read when its delivery starts (throws when it cannot be read). */
export interface Recipient {
  id: number;
  address(): SubscriberAddress;
}

/** What became of one delivery: when it ended, and why it failed (null when it was delivered). */
export interface DeliveryOutcome {
  id: number;
  at: string;
  error: string | null;
}

/** How subscribers are told: the delivery layer formats, sends and fans out (delivery/subscriber-delivery.ts). */
export interface SubscriberDelivery {
  /** Whether the service has a mail relay, as last known: email subscriptions need one. */
  readonly canMail: boolean;
  /** Whether the service has a mail relay, its stored email settings read now. */
  mailAvailable(): Promise<boolean>;
  /** Mails a new email subscriber the link that confirms it; throws when it was not sent. */
  confirmation(address: string, page: PageRef, confirmUrl: string): Promise<void>;
  /**
   * Tells every recipient of `event` and hands each outcome to `record`. Waits at most the
   * dispatch deadline: throws when a delivery failed, or when some are not over by then (those go
   * on in the background, recorded as they end).
   */
  fanOut(pageId: number, recipients: readonly Recipient[], event: PageEvent, record: (outcomes: DeliveryOutcome[]) => Promise<void>): Promise<void>;
  /** Starts no more deliveries (those left are recorded as not sent) and waits for the ones under way. */
  close(): Promise<void>;
}

/**
 * The limits of the public form, which anyone may post to, kept by the HTTP edge that knows the
 * visitor's address (http/rate-limit.ts, `createSignUpLimiter`). `client` is the visitor's
 * network address, when known.
 */
export interface SignUpLimits {
  /** Throws LIMIT_EXCEEDED, with `retryAfterSeconds`, when the page or the client has no sign-up left. */
  check(pageId: string, client: string | undefined): void;
  /** Counts one sign-up that sends a confirmation mail. */
  record(pageId: string, client: string | undefined): void;
  /** Forgets the limits' idle windows. */
  prune(): void;
}

const email = builtOnFirstUse(() =>
  z
    .email('must be an email address')
    .max(254, 'must be at most 254 characters')
    .transform((value) => value.toLowerCase()),
);
const addInput = builtOnFirstUse(() =>
  z
    .strictObject({ email: email().optional(), webhookUrl: httpUrl('the address that receives the JSON notifications').optional() })
    .refine((value) => (value.email === undefined) !== (value.webhookUrl === undefined), {
      message: 'give exactly one of email or webhookUrl',
      path: ['email'],
    }),
);

const MAIL_FAILED = 'the confirmation mail could not be sent';
/** A pending subscriber asking again gets a new confirmation mail at most this often. */
const RESEND_AFTER_MS = 10 * 60_000;
/** A pending subscriber not confirmed this long after its last confirmation mail is dropped. */
export const PENDING_TTL_MS = 48 * 60 * 60_000;

/** Shown for the URL of a webhook subscriber that cannot be opened (the key file was lost). */
const UNREADABLE = '(unreadable: subscribe again)';

/**
 * The URL of a webhook subscriber: sealed in `sealed_address`, with a keyed fingerprint of it in
 * `address` (which keeps a page's addresses unique). Rows of earlier versions hold the URL in
 * `address` until the start seals them (stored-secrets.ts).
 */
export const webhookFingerprint = (sealer: Sealer, url: string) => `hmac:${sealer.token(`webhook-subscriber:${url}`)}`;

function webhookUrlOf(sealer: Sealer, row: SubscriberRow): string | undefined {
  if (row.sealed_address === null) return row.address;
  try {
    return sealer.open<string>(row.sealed_address);
  } catch {
    return undefined;
  }
}

function toSubscriber(sealer: Sealer, row: SubscriberRow): Subscriber {
  const url = row.kind === 'webhook' ? webhookUrlOf(sealer, row) : undefined;
  return {
    id: String(row.id),
    pageId: String(row.page_id),
    kind: row.kind,
    address: row.kind === 'email' ? row.address : url === undefined ? UNREADABLE : String(maskCredential(url)),
    status: row.status,
    createdAt: row.created_at,
    confirmedAt: row.confirmed_at,
    lastDeliveryAt: row.last_delivery_at,
    lastDeliveryError: row.last_delivery_error,
  };
}

export interface SubscriberServiceOptions {
  publicUrl: string;
  sealer: Sealer;
  delivery: SubscriberDelivery;
  /** The public form's limits (http/rate-limit.ts). */
  signUpLimits: SignUpLimits;
  /** What addresses a webhook may name (checked again when delivering); by default the policy without an allow-list. */
  destinations?: DestinationPolicy;
}

/**
 * Page subscribers: email addresses (double opt-in, one-click unsubscribe) and webhooks, and who
 * a page event is dispatched to, at which address (the delivery layer fans it out).
 */
export function createSubscriberService(db: Kysely<Database>, options: SubscriberServiceOptions) {
  const { sealer, delivery, publicUrl, signUpLimits } = options;
  const destinations = options.destinations ?? createDestinationPolicy();
  const pageUrl = (page: PageRow) => toPage(page, publicUrl).url;
  const pageRef = (page: PageRow): PageRef => ({ id: String(page.id), slug: page.slug, title: page.title, url: pageUrl(page) });
  const link = (page: PageRow, action: 'confirm' | 'unsubscribe', row: SubscriberRow) =>
    `${pageUrl(page)}/${action}?s=${row.id}&token=${sealer.token(`${action}:${row.id}:${row.address}`)}`;

  /**
   * Adds a pending email subscriber (or finds the existing one) and mails the confirmation link.
   * A link that could not be sent is sent again on the next request, however soon. `beforeSending`
   * runs once a mail is about to go; `record` writes what the caller keeps of the sign-up, in the
   * transaction that marks the mail sent.
   */
  async function subscribeEmail(
    page: PageRow,
    address: string,
    hooks: { beforeSending?: () => void; record?: (trx: Kysely<Database>, row: SubscriberRow) => Promise<unknown> } = {},
  ): Promise<SubscriberRow> {
    const { beforeSending = () => {}, record = async () => {} } = hooks;
    await requireSubscriberPlan(page);
    if (!(await delivery.mailAvailable())) {
      throw new AppError(
        'PRECONDITION_FAILED',
        'email subscriptions need a mail server: set one in Settings, General, Email (or `statusdesk settings email set`), or set STATUSDESK_SMTP_URL for the service',
      );
    }
    const now = new Date().toISOString();
    const existing = await findEmailSubscriber(db, page.id, address);
    if (existing?.status === 'active' || (existing?.confirmation_sent_at && Date.parse(now) - Date.parse(existing.confirmation_sent_at) < RESEND_AFTER_MS)) {
      await record(db, existing);
      return existing;
    }
    // A mail will be sent: the limits are checked and counted here, before any row is added.
    beforeSending();
    // Two sign-ups of one address at once both find no row; the second insert then finds the first's.
    await insertPendingEmail(db, page.id, address, now);
    const row = existing ?? (await findEmailSubscriber(db, page.id, address));
    if (!row) throw new Error(`the subscriber ${address} of page ${page.id} was removed while it signed up`);
    try {
      await delivery.confirmation(row.address, pageRef(page), link(page, 'confirm', row));
    } catch (error) {
      throw new AppError('PRECONDITION_FAILED', `${MAIL_FAILED}; try again later (${reasonOf(error)})`);
    }
    const sent = { ...row, confirmation_sent_at: now };
    await writeTransaction(db, async (trx) => {
      await markConfirmationSent(trx, row.id, now);
      await record(trx, sent);
    });
    return sent;
  }

  /** Subscribers are a feature of the plan: without it they could never be told anything. */
  async function requireSubscriberPlan(page: PageRow): Promise<void> {
    const plan = await planOfWorkspace(db, page.workspace_id);
    if (!plan.subscriberNotifications) {
      throw new AppError(
        'PRECONDITION_FAILED',
        `subscribers are not part of the ${plan.name} plan: its pages notify nobody; move the workspace to a plan with subscriber notifications`,
      );
    }
  }

  /**
   * The subscriber a link names, if its token is genuine. The token alone decides: the slug in
   * the address is not checked, so links mailed before a page's slug changed keep working.
   */
  async function linked(action: 'confirm' | 'unsubscribe', id: string, token: string): Promise<{ page: PageRow; row: SubscriberRow }> {
    const gone = new AppError('NOT_FOUND', 'this link is not valid: it may have been used already or mistyped');
    // The id is part of the link: a garbled one is as invalid as a wrong token, and says no more.
    const subscriberId = idOf(id);
    const row = subscriberId === undefined ? undefined : await findSubscriber(db, subscriberId);
    if (!row || !sealer.verify(`${action}:${row.id}:${row.address}`, token)) throw gone;
    const page = await findPageById(db, row.workspace_id, row.page_id);
    if (!page) throw gone;
    return { page, row };
  }

  /** Where `row` is told of page events: at its address with its unsubscribe link, or at its webhook signed with its secret. */
  function addressOf(page: PageRow, row: SubscriberRow): SubscriberAddress {
    if (row.kind === 'email') return { kind: 'email', address: row.address, unsubscribeUrl: link(page, 'unsubscribe', row) };
    const url = webhookUrlOf(sealer, row);
    if (url === undefined)
      throw new Error(`the address of webhook subscriber ${row.id} cannot be read (the key file of the data folder was lost or replaced); subscribe it again`);
    return { kind: 'webhook', url, secret: sealer.open<string>(row.secret!) };
  }

  return {
    async list(actor: Actor, workspaceId: number, pageRef: string): Promise<Subscriber[]> {
      await authorize(db, actor, workspaceId, 'read');
      const page = await resolvePage(db, workspaceId, pageRef);
      const rows = await listSubscriberRows(db, page.id);
      return rows.map((row) => toSubscriber(sealer, row));
    },

    /**
     * An email subscriber starts pending and is mailed a confirmation link; a webhook subscriber
     * is active at once and gets its signing secret, returned only here.
     */
    async add(actor: Actor, workspaceId: number, pageRef: string, input: unknown): Promise<{ subscriber: Subscriber; secret: string | null }> {
      await authorize(db, actor, workspaceId, 'write');
      const values = parseInput(addInput(), input);
      const page = await resolvePage(db, workspaceId, pageRef);
      const recordCreate = (trx: Kysely<Database>, row: SubscriberRow) =>
        recordAudit(trx, {
          workspaceId,
          entityType: 'page_subscriber',
          entityId: row.id,
          action: 'page_subscriber.create',
          actor,
          before: null,
          after: { ...toSubscriber(sealer, row) },
        });
      if (values.email !== undefined) {
        const row = await subscribeEmail(page, values.email, { record: recordCreate });
        return { subscriber: toSubscriber(sealer, row), secret: null };
      }
      await requireSubscriberPlan(page);
      const url = values.webhookUrl!;
      const refused = destinations.refusalOfUrl(url);
      if (refused) throw invalid('webhookUrl', refused);
      const secret = newSecret('whsec_');
      const row = await writeTransaction(db, async (trx) => {
        const created = await insertWebhook(trx, page.id, {
          fingerprint: webhookFingerprint(sealer, url),
          sealedUrl: sealer.seal(url),
          sealedSecret: sealer.seal(secret),
          at: new Date().toISOString(),
        }).catch((error: unknown) => {
          if (isUniqueViolation(error, 'page_subscribers.page_id', 'page_subscribers.kind', 'page_subscribers.address'))
            throw new AppError('CONFLICT', "webhookUrl: this address already receives the page's notifications", [
              { field: 'webhookUrl', rule: 'must be unique on the page' },
            ]);
          throw error;
        });
        await recordCreate(trx, created);
        return created;
      });
      return { subscriber: toSubscriber(sealer, row), secret };
    },

    async remove(actor: Actor, workspaceId: number, id: string): Promise<void> {
      await authorize(db, actor, workspaceId, 'write');
      await writeTransaction(db, async (trx) => {
        const row = await findSubscriber(trx, parseId('id', 'subscriber', id));
        if (!row || row.workspace_id !== workspaceId) throw notFound('subscriber', id);
        await deleteSubscriber(trx, row.id);
        await recordAudit(trx, {
          workspaceId,
          entityType: 'page_subscriber',
          entityId: row.id,
          action: 'page_subscriber.delete',
          actor,
          before: { ...toSubscriber(sealer, row) },
          after: null,
        });
      });
    },

    /**
     * The public form on the page. Says the same whether or not the address was subscribed before.
     * `client` is the visitor's network address: a client or a page over its limit is refused
     * (LIMIT_EXCEEDED, with the seconds to wait) before anything is looked up or sent, so a refusal
     * says nothing about the address either. Only sign-ups that send a confirmation mail count.
     */
    async subscribePublic(slug: string, address: unknown, client?: string): Promise<void> {
      const parsed = email().safeParse(typeof address === 'string' ? address.trim() : address);
      if (!parsed.success) throw invalid('email', 'must be an email address');
      const page = await findPageBySlug(db, slug);
      if (!page) throw notFound('status page', slug);
      const pageId = String(page.id);
      signUpLimits.check(pageId, client);
      try {
        // Checked again and counted at once (no await between) when a mail is about to go.
        await subscribeEmail(page, parsed.data, {
          beforeSending: () => {
            signUpLimits.check(pageId, client);
            signUpLimits.record(pageId, client);
          },
        });
      } catch (error) {
        // A visitor learns that it failed, not how the service's mail relay answered.
        if (error instanceof AppError && error.code === 'PRECONDITION_FAILED' && error.message.startsWith(MAIL_FAILED))
          throw new AppError('PRECONDITION_FAILED', `${MAIL_FAILED}; try again later`);
        throw error;
      }
    },

    /** Whether a page event would be mailed to someone. Not a call of any surface: the service asks at start. */
    mailsPageEvents: async () => (await delivery.mailAvailable()) && (await hasActiveEmailSubscribers(db)),

    /**
     * Drops email subscribers still pending PENDING_TTL_MS after their last confirmation mail (or
     * their sign-up, when no mail went out), and forgets the sign-up limits' idle windows.
     */
    async prunePending(): Promise<number> {
      signUpLimits.prune();
      return deletePendingBefore(db, new Date(Date.now() - PENDING_TTL_MS).toISOString());
    },

    async confirm(id: string, token: string): Promise<{ pageTitle: string; pageUrl: string }> {
      const { page, row } = await linked('confirm', id, token);
      if (row.status === 'pending') {
        await activateSubscriber(db, row.id, new Date().toISOString());
      }
      return { pageTitle: page.title, pageUrl: pageUrl(page) };
    },

    /** Checks a confirm or unsubscribe link without acting on it (a mail scanner may fetch any link). */
    async checkLink(action: 'confirm' | 'unsubscribe', id: string, token: string): Promise<{ pageTitle: string; pageUrl: string; address: string }> {
      const { page, row } = await linked(action, id, token);
      return { pageTitle: page.title, pageUrl: pageUrl(page), address: row.address };
    },

    async unsubscribe(id: string, token: string): Promise<{ pageTitle: string; pageUrl: string }> {
      const { page, row } = await linked('unsubscribe', id, token);
      await deleteSubscriber(db, row.id);
      return { pageTitle: page.title, pageUrl: pageUrl(page) };
    },

    /**
     * Tells every active subscriber of the page. A silent no-op on plans without subscriber
     * notifications. Every subscriber is attempted and its outcome recorded on it. Waits at most
     * the dispatch deadline: it throws when a delivery failed, or when some are not over by then
     * (those go on in the background, recorded as they end).
     */
    async dispatch(workspaceId: number, pageId: number, event: PageEvent): Promise<void> {
      if (!(await planOfWorkspace(db, workspaceId)).subscriberNotifications) return;
      const page = await findPageById(db, workspaceId, pageId);
      if (!page) throw notFound('status page', String(pageId));
      const rows = await listActiveSubscriberRows(db, pageId);
      const recipients = rows.map((row): Recipient => ({ id: row.id, address: () => addressOf(page, row) }));
      await delivery.fanOut(pageId, recipients, event, (outcomes) => recordDeliveries(db, outcomes));
    },

    /** Starts no more deliveries (those left are recorded as not sent) and waits for the ones under way, each bounded by its timeout. */
    close: () => delivery.close(),
  };
}

export type SubscriberService = ReturnType<typeof createSubscriberService>;

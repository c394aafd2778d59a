import { isAbsolute } from 'node:path';
import { z } from 'zod';

/**
 * The messages between the desktop app and the service host it runs in a utility process. The
 * app and the host ship together, but each side still checks what it receives: a message is only
 * acted on once it has the shape below.
 */

export interface HostPorts {
  api: number;
  dashboard: number;
}

// ---- app → host -------------------------------------------------------------------------------

/** Starts the service on `dataDir`; a port of 0 picks a free one. */
export interface StartMessage {
  type: 'start';
  /** An absolute path: the host's working folder is no business of the app's. */
  dataDir: string;
  ports: HostPorts;
  /** The 32 bytes, in base64, that seal stored credentials; without it, the data folder's key file. */
  sealingKey?: string;
}

/** Asks for a fresh one-time link that signs the owner into the dashboard. */
export interface SignInRequest {
  type: 'sign-in';
}

/** Closes the service (writes in flight finish) and ends the host. */
export interface StopMessage {
  type: 'stop';
}

export type AppMessage = StartMessage | SignInRequest | StopMessage;

// ---- host → app -------------------------------------------------------------------------------

/** The service listens: the addresses it is reached at and the ports it took. */
export interface ReadyMessage {
  type: 'ready';
  apiUrl: string;
  dashboardUrl: string;
  ports: HostPorts;
}

/** A one-time sign-in link on the dashboard's port, for the app's own window only. */
export interface SignInLink {
  type: 'sign-in';
  url: string;
}

export interface DesktopAlert {
  kind: 'down' | 'recovered' | 'degraded' | 'tool_drift';
  monitorId: string;
  monitorName: string;
  workspaceName: string;
  /** The workspace's slug: the app opens the monitor in its workspace (`?workspace=`). */
  workspaceSlug: string;
  message: string;
  /** When the check that changed the state started (ISO 8601). */
  at: string;
  /** A test sent from the channel's Send test: no monitor changed state, and `monitorId` names none. */
  test: boolean;
  /** What happened in the service's words: `api is back up after 12 min`, `3 monitors are down: …`. */
  headline?: string;
}

/** An alert of a desktop notification channel, to show as a native notification. */
export interface AlertMessage {
  type: 'alert';
  alert: DesktopAlert;
}

export type OverallHealth = 'up' | 'degraded' | 'down' | 'unknown';

export interface HealthSummary {
  /** down when any monitor is down, else degraded when any is, else up when any is; unknown when none has a result. */
  overall: OverallHealth;
  /** The monitors that are down, across every workspace of the owner. */
  down: { monitorId: string; name: string; workspaceId: string }[];
  counts: { up: number; degraded: number; down: number; pending: number; paused: number };
}

/** The health of every monitor of the owner: sent at start and whenever it changes. */
export interface HealthMessage extends HealthSummary {
  type: 'health';
}

/** An app asks to connect: the owner decides in a trusted place, checking the code its browser shows. */
export interface ConsentMessage {
  type: 'consent';
  request: { id: string; matchCode: string; clientName: string; access: 'read' | 'write'; expiresAt: string };
}

/** The service closed cleanly; the host exits 0 next. */
export interface StoppedMessage {
  type: 'stopped';
}

/** The service could not start (or stop): the reason, for a person. The host exits non-zero next. */
export interface FailedMessage {
  type: 'failed';
  message: string;
}

export type HostMessage = ReadyMessage | SignInLink | AlertMessage | HealthMessage | ConsentMessage | StoppedMessage | FailedMessage;

// ---- checks of what arrives -------------------------------------------------------------------

const SEALING_KEY_BYTES = 32;
const port = z.number().int().min(0).max(65535);
const ports = z.object({ api: port, dashboard: port });
const text = z.string().min(1);
const count = z.number().int().min(0);

const appMessage = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('start'),
    dataDir: text.refine(isAbsolute, 'must be an absolute path'),
    ports,
    sealingKey: z
      .string()
      .refine(
        (key) => /^[A-Za-z0-9+/]+={0,2}$/.test(key) && Buffer.from(key, 'base64').length === SEALING_KEY_BYTES,
        `must be ${SEALING_KEY_BYTES} bytes in base64`,
      )
      .optional(),
  }),
  z.object({ type: z.literal('sign-in') }),
  z.object({ type: z.literal('stop') }),
]) satisfies z.ZodType<AppMessage>;

const hostMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), apiUrl: text, dashboardUrl: text, ports }),
  z.object({ type: z.literal('sign-in'), url: text }),
  z.object({
    type: z.literal('alert'),
    alert: z.object({
      kind: z.enum(['down', 'recovered', 'degraded']),
      monitorId: text,
      monitorName: z.string(),
      workspaceName: z.string(),
      workspaceSlug: z.string(),
      message: z.string(),
      at: text,
      test: z.boolean(),
      headline: z.string().optional(),
    }),
  }),
  z.object({
    type: z.literal('health'),
    overall: z.enum(['up', 'degraded', 'down', 'unknown']),
    down: z.array(z.object({ monitorId: text, name: z.string(), workspaceId: text })),
    counts: z.object({ up: count, degraded: count, down: count, pending: count, paused: count }),
  }),
  z.object({
    type: z.literal('consent'),
    request: z.object({ id: text, matchCode: text, clientName: z.string(), access: z.enum(['read', 'write']), expiresAt: text }),
  }),
  z.object({ type: z.literal('stopped') }),
  z.object({ type: z.literal('failed'), message: z.string() }),
]) satisfies z.ZodType<HostMessage>;

/** Thrown for a message that does not have its type's shape; the message names what is wrong. */
export class ProtocolError extends Error {}

function check<T>(schema: z.ZodType<T>, from: string, data: unknown): T {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw new ProtocolError(`not a message of the ${from}: ${where}${issue.message}`);
}

/** A message the host received from the app, checked; throws a ProtocolError otherwise. */
export const appMessageOf = (data: unknown): AppMessage => check(appMessage, 'desktop app', data);

/** A message the app received from the host, checked; throws a ProtocolError otherwise. */
export const hostMessageOf = (data: unknown): HostMessage => check(hostMessage, 'service host', data);

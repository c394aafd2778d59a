// The audit log in words, as the dashboard shows an entry: "Ana paused the monitor API". The
// entry keeps its machine names (`monitor.update`, `active`) for the API, MCP and the detail;
// these words are for people only, and this file is their one home.

type Snapshot = Record<string, unknown> | null;

/** What the words are made from: an entry as stored. */
export interface WordedEntry {
  entityType: string;
  entityId: string;
  action: string;
  before: Snapshot;
  after: Snapshot;
  changedFields: string[];
}

/** A kind of record: what it is called in a sentence, and which snapshot field names it. */
interface RecordKind {
  /** After a verb: "deleted the monitor", "revoked the connection of". */
  noun: string;
  name: string;
}

const KINDS: Record<string, RecordKind> = {
  monitor: { noun: 'the monitor', name: 'name' },
  status_page: { noun: 'the status page', name: 'title' },
  page_component: { noun: 'the component', name: 'name' },
  status_report: { noun: 'the status report', name: 'title' },
  maintenance: { noun: 'the maintenance', name: 'title' },
  notification_channel: { noun: 'the notification channel', name: 'name' },
  page_subscriber: { noun: 'the subscriber', name: 'address' },
  api_key: { noun: 'the API key', name: 'name' },
  oauth_grant: { noun: 'the connection of', name: 'clientName' },
  membership: { noun: 'the member', name: 'name' },
  workspace: { noun: 'the workspace', name: 'name' },
  private_location: { noun: 'the private location', name: 'name' },
  email_settings: { noun: 'the email settings', name: 'host' },
  invitation: { noun: 'an invitation', name: 'role' },
  passkey: { noun: 'the passkey', name: 'name' },
  session: { noun: 'a dashboard session', name: 'method' },
};

/** Actions whose words are a whole phrase before the record's name: "signed in with passkey". */
const ACTION_PHRASES: Record<string, string> = {
  'invitation.create': 'invited someone as',
  'invitation.revoke': 'withdrew an invitation as',
  'session.create': 'signed in with',
  'session.delete': 'ended a dashboard session',
  'passkey.create': 'added the passkey',
  'passkey.delete': 'removed the passkey',
};

/** Verbs of the actions every kind shares (`<entity>.create`, `.delete`, `.update`). */
const SHARED_VERBS: Record<string, string> = { create: 'created', delete: 'deleted', update: 'changed' };

/** Actions with words of their own, by their machine name. */
const ACTION_VERBS: Record<string, string> = {
  'page_component.create': 'added',
  'page_component.delete': 'removed',
  'page_subscriber.create': 'added',
  'page_subscriber.delete': 'removed',
  'membership.create': 'added',
  'membership.delete': 'removed',
  'status_report.create': 'posted',
  'status_report.add_update': 'posted an update to',
  'status_report.resolve': 'resolved',
  'api_key.create': 'created',
  'api_key.revoke': 'revoked',
  'oauth_grant.create': 'approved',
  'oauth_grant.delete': 'revoked',
  'monitor.rotate_ping_token': 'issued a new ping URL for',
  'monitor.badges': 'changed the public badges of',
  'monitor.tools_pinned': 'pinned the tools of',
  'monitor.tools_drifted': 'found changed tools on',
  'monitor.tools_reverted': 'found the pinned tools again on',
  'monitor.tools_accepted': 'accepted the changed tools of',
  'private_location.rotate_token': 'issued a new token for',
  'maintenance.create': 'scheduled',
};

/** Fields as people call them, where the machine name is not already a word. */
const FIELD_WORDS: Record<string, string> = {
  periodicity: 'interval',
  url: 'URL',
  uri: 'address',
  retry: 'retries',
  degraded: 'degraded threshold',
  remindEvery: 'reminders',
  openTelemetry: 'OpenTelemetry export',
  privateLocations: 'private locations',
  statusCodeAssertions: 'expected status',
  bodyAssertions: 'body checks',
  headerAssertions: 'header checks',
  secretsFingerprint: 'credentials',
  credentialsFingerprint: 'credentials',
  monitorIds: 'monitors',
  monitorId: 'monitor',
  config: 'settings',
  pageComponentIds: 'components',
  from: 'start',
  to: 'end',
  accentColor: 'accent colour',
  websiteUrl: 'website link',
  logoType: 'logo',
  customDomain: 'custom domain',
  allMonitors: 'all monitors',
  defaultForNew: 'default for new monitors',
  metadata: 'metadata',
  tokenPrefix: 'token',
};

/** Fields whose words depend on the record: an email's `from` is its sender, not a start. */
const KIND_FIELD_WORDS: Record<string, Record<string, string>> = {
  email_settings: { from: 'sender', host: 'mail server' },
};

/** Fields that change only with another one, so naming them says nothing more. */
const FOLLOWERS = new Set(['resolvedAt', 'resolved', 'updateCount', 'formerSlug', 'revokedAt', 'reason']);

/** A field's words: its own, or its camelCase name spelled out ("noAuth" → "no auth"). */
export function fieldWords(field: string): string {
  return FIELD_WORDS[field] ?? field.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

/** "a", "a and b", "a, b and c"; more than four are counted. */
function listed(words: string[]): string {
  if (words.length > 4) return `${words.length} fields`;
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** The fields an update changed, in words, each once ("logo" and "logoType" are one). */
function changedWords(entry: WordedEntry): string[] {
  const own = KIND_FIELD_WORDS[entry.entityType] ?? {};
  return [...new Set(entry.changedFields.filter((field) => !FOLLOWERS.has(field)).map((field) => own[field] ?? fieldWords(field)))];
}

/** The verb of an update: paused or resumed (a monitor), and what else changed. */
function updateVerb(entry: WordedEntry): string {
  const fields = entry.changedFields.filter((field) => field !== 'active');
  const others = changedWords({ ...entry, changedFields: fields });
  if (entry.entityType === 'monitor' && entry.changedFields.includes('active')) {
    const paused = entry.after?.active === false ? 'paused' : 'resumed';
    return others.length === 0 ? paused : `${paused} and changed ${listed(others)} of`;
  }
  return others.length === 0 ? 'changed' : `changed ${listed(others)} of`;
}

/** The verb of an action, before the record: "paused", "changed interval and URL of". */
function verbOf(entry: WordedEntry): string {
  if (entry.action === 'oauth_grant.delete' && entry.after?.reason === 'replaced') return 'replaced';
  const own = ACTION_VERBS[entry.action];
  if (own) return own;
  const verb = entry.action.slice(entry.action.lastIndexOf('.') + 1);
  if (verb === 'update') return updateVerb(entry);
  return SHARED_VERBS[verb] ?? verb.replaceAll('_', ' ');
}

/** The record's name in this entry's snapshots (the newer one), or undefined when they hold none. */
export function nameAtTheTime(entry: Pick<WordedEntry, 'entityType' | 'before' | 'after'>): string | undefined {
  const field = KINDS[entry.entityType]?.name ?? 'name';
  for (const snapshot of [entry.after, entry.before]) {
    const value = snapshot?.[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/**
 * The entry's action in words, to follow the actor's name and precede the record's name:
 * "paused the monitor", "revoked the connection of", "changed interval and URL of the monitor".
 */
export function actionWords(entry: WordedEntry): string {
  const phrase = ACTION_PHRASES[entry.action];
  if (phrase) return phrase;
  const noun = KINDS[entry.entityType]?.noun ?? `the ${entry.entityType.replaceAll('_', ' ')}`;
  return `${verbOf(entry)} ${noun}`;
}

/** The records that live on a status page's screen, by the snapshot field naming their page. */
const ON_A_PAGE = new Set(['page_component', 'status_report', 'maintenance', 'page_subscriber']);

/** The screens that list a kind of record (the dashboard's routes, contract/dashboard.ts). */
const LISTED_ON: Record<string, string> = {
  notification_channel: '/notifications',
  api_key: '/settings/general/api-keys',
  oauth_grant: '/settings/integrations/connected-apps',
  private_location: '/locations',
  email_settings: '/settings/general/email',
  invitation: '/settings/general/members',
  membership: '/settings/general/members',
  passkey: '/settings/account',
  session: '/settings/account',
};

/** The status page a record of a page belongs to, from its snapshots. */
export function pageOf(entry: Pick<WordedEntry, 'entityType' | 'before' | 'after'>): string | undefined {
  if (!ON_A_PAGE.has(entry.entityType)) return undefined;
  const pageId = entry.after?.pageId ?? entry.before?.pageId;
  return typeof pageId === 'string' || typeof pageId === 'number' ? String(pageId) : undefined;
}

/**
 * Where the record is in the dashboard, or null when it is gone (`gone(type, id)`: the log holds
 * its deletion) or has no screen (a workspace, a member).
 */
export function recordPath(
  entry: Pick<WordedEntry, 'entityType' | 'entityId' | 'before' | 'after'>,
  gone: (entityType: string, id: string) => boolean,
): string | null {
  if (gone(entry.entityType, entry.entityId)) return null;
  if (entry.entityType === 'monitor') return `/monitors/${encodeURIComponent(entry.entityId)}`;
  if (entry.entityType === 'status_page') return `/pages/${encodeURIComponent(entry.entityId)}`;
  const page = pageOf(entry);
  if (page !== undefined) return gone('status_page', page) ? null : `/pages/${encodeURIComponent(page)}`;
  return LISTED_ON[entry.entityType] ?? null;
}

/** Actions after which a record no longer exists. */
export const ENDING_ACTIONS = [
  'monitor.delete',
  'status_page.delete',
  'page_component.delete',
  'status_report.delete',
  'maintenance.delete',
  'notification_channel.delete',
  'page_subscriber.delete',
  'api_key.revoke',
  'oauth_grant.delete',
  'membership.delete',
  'private_location.delete',
  'invitation.revoke',
  'passkey.delete',
  'session.delete',
];

import { z } from 'zod';
import { channelKindNames, channelSpecOf } from '../delivery/channels/registry.ts';
import type { AuditEntry } from '../domain/audit/audit-log.ts';
import { defineTool, pageInput, pagination, READ, record } from './tool.ts';

const snapshot = z.record(z.string(), z.unknown()).nullable();

const auditEntry = record({
  id: z.string().describe('The entry id, for get_audit_log.'),
  entityType: z.string(),
  entityId: z.string(),
  action: z.string().describe('<entity>.<verb>, e.g. status_report.create.'),
  actor_type: z.string().describe('mcp for changes made through this server; apiKey, oauth, user or system otherwise.'),
  actor_id: z.string().describe('The key id, oat_<grant id> for an OAuth connection, the user id for a person, or system.'),
  actor_user_id: z.number().int().nullable().describe('The user who created the key, approved the connection or made the change.'),
  changedFields: z.array(z.string()),
  createdAt: z.string(),
});

/**
 * An audit entry as the MCP tools show it: the actor's fields under the names SPEC 2.10 and 6 give
 * them (actor_type, actor_id, actor_user_id, the audit log's own columns), the others as the
 * service names them. Only MCP shows entries this way; the dashboard shows who acted its own way.
 */
function shown(entry: AuditEntry) {
  const { id, entityType, entityId, action, changedFields, createdAt, before, after } = entry;
  return {
    id,
    entityType,
    entityId,
    action,
    actor_type: entry.actorType,
    actor_id: entry.actorId,
    actor_user_id: entry.actorUserId,
    changedFields,
    createdAt,
    before,
    after,
  };
}

export const workspaceTools = [
  defineTool({
    name: 'list_notifications',
    title: 'List notification channels',
    description: `Notification channels (${channelKindNames.map((kind) => channelSpecOf(kind).title).join(', ')}) with the monitors wired to each. Credentials are never shown, only masked.`,
    access: 'read',
    annotations: READ,
    input: z.strictObject(pageInput(200)),
    output: z.object({
      notifications: z.array(
        record({
          id: z.string(),
          name: z.string(),
          kind: z.string(),
          monitorIds: z.array(z.string()),
          config: z.record(z.string(), z.unknown()).describe('Settings; credentials masked.'),
          events: z.array(z.string()).describe('The events the channel receives; empty: every event.'),
          allMonitors: z.boolean().describe('Whether it receives the alerts of every monitor, those created later too, whatever monitorIds lists.'),
          defaultForNew: z.boolean().describe('Whether each monitor created from now on is wired to it.'),
          health: z
            .object({
              failures: z.number(),
              lastError: z.string().nullable(),
              lastFailedAt: z.string().nullable(),
              lastSentAt: z.string().nullable(),
              backoffUntil: z.string().nullable(),
            })
            .describe('How its deliveries fare: failures in a row, the last error, and until when a channel that keeps failing is backed off.'),
        }),
      ),
      pagination,
    }),
    async run({ actor, workspaceId, services }, query) {
      const { channels, pagination } = await services.channels.list(actor, workspaceId, query);
      return { notifications: channels, pagination };
    },
  }),
  defineTool({
    name: 'list_private_locations',
    title: 'List private locations',
    description:
      "The places monitors are checked from: name, status (active, or error when its runner is silent for over a minute), metadata and last-seen time. The embedded runner of this machine (`local`, embedded: true) is the first, then the workspace's private locations, oldest first. Agent tokens are never shown.",
    access: 'read',
    annotations: READ,
    input: z.strictObject(pageInput(100)),
    output: z.object({
      privateLocations: z.array(
        record({
          id: z.string(),
          name: z.string(),
          status: z.enum(['active', 'error']),
          metadata: z.record(z.string(), z.string()),
          lastSeenAt: z.string().nullable(),
          embedded: z.boolean(),
        }),
      ),
      pagination,
    }),
    async run({ actor, workspaceId, services }, query) {
      const { locations, pagination } = await services.locations.list(actor, workspaceId, query);
      return {
        privateLocations: locations.map(({ id, name, status, metadata, lastSeenAt, embedded }) => ({ id, name, status, metadata, lastSeenAt, embedded })),
        pagination,
      };
    },
  }),
  defineTool({
    name: 'list_audit_logs',
    title: 'List audit log entries',
    description:
      'Who changed what, newest first, from the last 14 days only. Filter by entityType (e.g. monitor, status_report) and entityId. Snapshots are in get_audit_log.',
    access: 'read',
    feature: 'auditLog',
    annotations: READ,
    input: z.strictObject({
      ...pageInput(50),
      entityType: z
        .string()
        .min(1)
        .max(100)
        .optional()
        .describe('Only entries about this kind of entity, e.g. monitor, status_page, status_report, maintenance, api_key.'),
      entityId: z
        .union([z.string().min(1), z.number().int()])
        .optional()
        .describe('Only entries about this entity id.'),
    }),
    output: z.object({ auditLogs: z.array(auditEntry), pagination }),
    async run({ actor, workspaceId, services }, query) {
      const { auditLogs, pagination } = await services.auditLog.list(actor, workspaceId, query);
      // The list names what changed; the snapshots are the detail get_audit_log gives.
      return {
        auditLogs: auditLogs.map((entry) => {
          const { before: _b, after: _a, ...listed } = shown(entry);
          return listed;
        }),
        pagination,
      };
    },
  }),
  defineTool({
    name: 'get_audit_log',
    title: 'Get an audit log entry',
    description: 'One audit entry with its before and after snapshots and changedFields (last 14 days only).',
    access: 'read',
    feature: 'auditLog',
    annotations: READ,
    input: z.strictObject({ auditLogId: z.union([z.string().min(1), z.number().int().positive()]).describe('An entry id from list_audit_logs.') }),
    output: z.object({ auditLog: auditEntry.extend({ before: snapshot, after: snapshot }) }),
    async run({ actor, workspaceId, services }, args) {
      return { auditLog: shown(await services.auditLog.get(actor, workspaceId, String(args.auditLogId))) };
    },
  }),
];

/**
 * The registries of monitor types (server/domain/monitors/monitor-types.ts) and channel kinds
 * (server/delivery/channels/registry.ts): every surface knows every entry. For each entry the
 * service stores a real one, and each surface must carry all of its declared fields: the RPC codec
 * (both ways), the words of the CLI and MCP, the `apply -f` file (written and read back), the
 * command's flags, the reference's table and the dashboard's hints in contract/. A new type or
 * channel that a surface does not know fails here, naming the surface.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { MonitorService } from '../proto/gen/monitor/v1/monitor_pb.js';
import { NotificationChannelSchema } from '../proto/gen/notification/v1/notification_pb.js';
import { CHANNEL_KINDS } from '../contract/channel-kinds.ts';
import { MONITOR_TYPES } from '../contract/monitor-types.ts';
import { configCaseOf as formConfigCaseOf } from '../renderer/src/screens/channel-form-model.ts';
import { contractFiles } from '../scripts/contract-fields.ts';
import { probes } from '../server/checks/probes.ts';
import { readDesired, renderFile, toFileMonitor } from '../server/cli/config-as-code/file-format.ts';
import { channelCommands } from '../server/cli/channel-commands.ts';
import { monitorCommands } from '../server/cli/monitor-commands.ts';
import { channelFieldsTable, channelKindHints, channelKindNames, channelRequestsTable, channelSpecOf, wordOf } from '../server/delivery/channels/registry.ts';
import type { Actor } from '../server/domain/actor.ts';
import { examplesOf, monitorFieldsTable, monitorTypeHints, monitorTypeNames, specOf } from '../server/domain/monitors/monitor-types.ts';
import type { Monitor } from '../server/domain/monitors/monitors.ts';
import { monitorTools } from '../server/mcp/monitor-tools.ts';
import { workspaceTools } from '../server/mcp/workspace-tools.ts';
import type { ToolContext } from '../server/mcp/tool.ts';
import { configCaseOf, configMessageOf, configWords, domainConfig, wireConfig } from '../server/rpc/channel-config.ts';
import { createInput, monitorWords, toMonitorMessage, wireOf } from '../server/rpc/monitor-codec.ts';
import { toChannelMessage } from '../server/rpc/notification-codec.ts';
import type { Services } from '../server/services.ts';
import { withLocalOwner } from './support/database.ts';
import { tempDir } from './support/harness.ts';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

/** The section of a Markdown page under `## heading`, up to the next heading of that level. */
function section(page: string, heading: string): string {
  const start = page.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `the page has a section "## ${heading}"`);
  const end = page.indexOf('\n## ', start + 1);
  return page.slice(start, end === -1 ? undefined : end);
}

describe('every monitor type is known to every surface', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let context: ToolContext;
  /** A monitor of each type, made of its declared example, as the monitor service answers it. */
  const made = new Map<string, Monitor>();

  before(async () => {
    dir = await tempDir();
    await withLocalOwner(dir.path, async (services: Services, owner: Actor) => {
      const { id } = await services.workspaces.getBySlug(owner, 'personal');
      // Each surface's tools run later, on services of their own over the same folder.
      context = { actor: owner, workspaceId: Number(id), services: undefined as unknown as Services, content: undefined as never };
    });
  });

  /**
   * The stored monitor of a type made of one of its examples (`examplesOf`), made with the first
   * test that needs it: a type the service cannot store fails its own tests only.
   */
  async function storedOf(type: (typeof monitorTypeNames)[number], which = 0): Promise<Monitor> {
    const key = `${type}:${which}`;
    let monitor = made.get(key);
    if (!monitor) {
      monitor = await withLocalOwner(dir.path, (services) =>
        services.monitors.create(context.actor, context.workspaceId, type, {
          name: `${type} example ${which}`,
          periodicity: '10m',
          regions: ['iad'],
          ...examplesOf(specOf(type))[which],
        }),
      );
      made.set(key, monitor);
    }
    return monitor;
  }

  after(() => dir.remove());

  for (const type of monitorTypeNames) {
    describe(type, () => {
      const spec = specOf(type);
      const fields = Object.keys(spec.fields());

      test('the monitor service stores it, and its examples set every field of its own, with a value other than the default', async () => {
        const examples = examplesOf(spec);
        const stored: Monitor[] = [];
        for (const which of examples.keys()) stored.push(await storedOf(type, which));
        for (const [name, field] of Object.entries(spec.fields())) {
          const setBy = examples.findIndex((example) => Object.hasOwn(example, name));
          assert.ok(setBy >= 0, `an example of ${type} sets ${name}`);
          assert.notDeepEqual(
            (stored[setBy] as unknown as Record<string, unknown>)[name],
            field.schema.safeParse(undefined).data,
            `the example of ${type} sets ${name} to a value of its own`,
          );
        }
      });

      for (const [which, example] of examplesOf(spec).entries()) {
        const named = Object.keys(example);
        const of = which === 0 ? '' : ` (example ${which + 1})`;

        test(`the RPC codec: its message and calls exist, and every field goes to the wire and back${of}`, async () => {
          const wire = wireOf(type);
          assert.ok(MonitorService.method[wire.createMethod as keyof typeof MonitorService.method], `MonitorService has ${wire.createMethod}`);
          assert.ok(MonitorService.method[wire.updateMethod as keyof typeof MonitorService.method], `MonitorService has ${wire.updateMethod}`);
          const monitor = await storedOf(type, which);
          const back = createInput(type, toMonitorMessage(monitor));
          for (const name of named) assert.deepEqual(back[name], (monitor as unknown as Record<string, unknown>)[name], `${type}.${name} after the wire`);
        });

        test(`the words of the CLI and MCP carry every field${of}`, async () => {
          const monitor = (await storedOf(type, which)) as unknown as Record<string, unknown>;
          const words = monitorWords(type, toMonitorMessage(monitor as unknown as Monitor));
          assert.equal(words.target, monitor[spec.target]);
          for (const name of named.filter((f) => f !== spec.target)) assert.deepEqual(words[name], monitor[name], `${type}.${name} in the CLI's words`);

          const tool = monitorTools.find((t) => t.name === 'get_monitor')!;
          const answer = await withLocalOwner(dir.path, (services) => tool.run({ ...context, services }, { monitorId: Number(monitor.id) }));
          const shown = tool.output.parse(answer) as { monitor: Record<string, unknown> };
          assert.equal(shown.monitor.type, type);
          assert.equal(shown.monitor.url, monitor[spec.target]);
          for (const name of named) assert.deepEqual((answer as { monitor: Record<string, unknown> }).monitor[name], monitor[name], `${type}.${name} in MCP`);
        });

        test(`an apply -f file writes every field and reads it back the same${of}`, async () => {
          const monitor = await storedOf(type, which);
          const { id: _id, workspaceId: _w, type: _t, createdAt: _c, updatedAt: _u, ...config } = monitor;
          const file = renderFile([toFileMonitor(monitor.name, type, config)], []);
          const [desired] = readDesired(file, {}).monitors;
          assert.equal(desired!.type, type);
          for (const name of fields)
            assert.deepEqual((desired!.config as Record<string, unknown>)[name], (config as Record<string, unknown>)[name], `${type}.${name} in a file`);
        });
      }

      test('statusdesk monitors create and update have a flag for every field, and name it for the service', () => {
        for (const command of ['monitors create', 'monitors update']) {
          const { options, fields: paths } = monitorCommands[command]!;
          assert.equal(paths![`monitor.${spec.target}`], '--target');
          for (const [name, field] of Object.entries(spec.fields())) {
            if (name === spec.target) continue;
            assert.ok(field.flag, `${type}.${name} declares a flag`);
            assert.ok(options[field.flag.name], `${command} has --${field.flag.name}`);
            assert.equal(paths![`monitor.${name}`], `--${field.flag.name}`, `${command} names --${field.flag.name} for monitor.${name}`);
          }
        }
        assert.match(monitorCommands['monitors create']!.usage, new RegExp(`\\b${type}\\b`));
      });

      test('the check engine has its probe', () => {
        assert.equal(typeof probes[type], 'function');
      });

      test("docs/reference/monitors.md has the type's table", () => {
        const table = monitorFieldsTable(type);
        assert.ok(
          section(read('docs/reference/monitors.md'), spec.title).includes(`\n${table}\n`),
          `docs/reference/monitors.md, ## ${spec.title}: replace the table with monitorFieldsTable('${type}'):\n${table}`,
        );
      });

      test("the dashboard's hints (contract/monitor-types.ts) have every field", () => {
        const hints = (MONITOR_TYPES as Record<string, { fields: readonly { name: string }[] }>)[type];
        assert.ok(hints, `contract/monitor-types.ts has ${type}: run node scripts/contract-fields.ts`);
        assert.deepEqual(
          hints.fields.map((f) => f.name),
          fields,
        );
      });
    });
  }

  test('contract/monitor-types.ts is what the declarations give (node scripts/contract-fields.ts writes it)', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(MONITOR_TYPES)), JSON.parse(JSON.stringify(monitorTypeHints())));
    assert.ok(contractFiles()['contract/monitor-types.ts']);
  });
});

describe('every channel kind is known to every surface', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let owner: Actor;
  let workspaceId: number;

  before(async () => {
    dir = await tempDir();
    await withLocalOwner(dir.path, async (services: Services, actor: Actor) => {
      owner = actor;
      workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
    });
  });

  after(() => dir.remove());

  /** A channel of the kind made of its declared example, as the channel service answers it. */
  const stored = (kind: string) =>
    withLocalOwner(dir.path, (services) =>
      services.channels.create(owner, workspaceId, { name: `${kind} example`, kind, config: channelSpecOf(kind as never).example }),
    );

  for (const kind of channelKindNames) {
    describe(kind, () => {
      const spec = channelSpecOf(kind);
      const fields = Object.entries(spec.fields());

      test('the channel service keeps every field: settings as given, credentials masked', async () => {
        const channel = await stored(kind);
        for (const [name, field] of fields) {
          assert.ok(Object.hasOwn(spec.example, name), `the example of ${kind} sets ${name}`);
          assert.ok(Object.hasOwn(channel.config, name), `${kind}.${name} is stored`);
          if (!field.credential)
            assert.deepEqual(channel.config[name], (spec.example as Record<string, unknown>)[name], `${kind}.${name} is a setting, shown as given`);
          else assert.notDeepEqual(channel.config[name], (spec.example as Record<string, unknown>)[name], `${kind}.${name} is a credential, shown masked`);
        }
      });

      test('the RPC codec: its message exists, and every field goes to the wire and back', () => {
        assert.ok(configMessageOf(kind), `notification.v1's config has ${kind}`);
        const message = create(NotificationChannelSchema, { config: wireConfig(kind, spec.example as Record<string, unknown>) as never });
        assert.equal(message.config.case, configCaseOf(kind));
        assert.equal(formConfigCaseOf(kind), configCaseOf(kind), "the dashboard's form names the kind's case as the wire does");
        assert.deepEqual(domainConfig(message.config), { kind, config: spec.example });
      });

      test('the words of the CLI and MCP carry every field', async () => {
        const message = toChannelMessage(await stored(kind));
        const words = configWords(message.config);
        for (const [name, field] of fields) assert.ok(Object.hasOwn(words, wordOf(name, field)), `${kind}.${name} in the CLI's words`);

        const tool = workspaceTools.find((t) => t.name === 'list_notifications')!;
        const answer = await withLocalOwner(dir.path, (services) =>
          tool.run({ actor: owner, workspaceId, services, content: undefined as never }, { page: 1, perPage: 200 }),
        );
        const { notifications } = tool.output.parse(answer) as { notifications: { kind: string; config: Record<string, unknown> }[] };
        const shown = notifications.find((n) => n.kind === kind);
        assert.ok(shown, `list_notifications shows the ${kind} channel`);
        for (const [name] of fields) assert.ok(Object.hasOwn(shown.config, name), `${kind}.${name} in MCP`);
      });

      test('statusdesk channels add and update have a flag for every field, and name it for the service', () => {
        for (const command of ['channels add', 'channels update']) {
          const { options, fields: paths } = channelCommands[command]!;
          for (const [name, field] of fields) {
            assert.ok(options[field.flag.name], `${command} has --${field.flag.name}`);
            assert.equal(paths![`${kind}.${name}`], `--${field.flag.name}`, `${command} names --${field.flag.name} for ${kind}.${name}`);
          }
        }
        assert.match(channelCommands['channels add']!.usage, new RegExp(`\\b${kind}\\b`));
      });

      test('it sends', () => {
        assert.equal(typeof spec.send, 'function');
      });

      test("docs/reference/notifications.md has the kind's rows", () => {
        const page = read('docs/reference/notifications.md');
        for (const table of [channelFieldsTable(), channelRequestsTable()]) {
          const row = table.split('\n').find((line) => line.startsWith(`| \`${kind}\` |`))!;
          assert.ok(page.includes(`\n${row}\n`), `docs/reference/notifications.md: the ${kind} row of the table is not\n${row}`);
        }
      });

      test("the dashboard's hints (contract/channel-kinds.ts) have every field", () => {
        const hints = (CHANNEL_KINDS as Record<string, { fields: readonly { name: string }[] }>)[kind];
        assert.ok(hints, `contract/channel-kinds.ts has ${kind}: run node scripts/contract-fields.ts`);
        assert.deepEqual(
          hints.fields.map((f) => f.name),
          fields.map(([name]) => name),
        );
      });
    });
  }

  test("docs/reference/notifications.md's tables are what the declarations give", () => {
    const page = read('docs/reference/notifications.md');
    assert.ok(
      page.includes(channelFieldsTable()),
      'docs/reference/notifications.md: replace the table of settings and credentials with channelFieldsTable() of server/delivery/channels/registry.ts',
    );
    assert.ok(
      page.includes(channelRequestsTable()),
      'docs/reference/notifications.md: replace the table of requests with channelRequestsTable() of server/delivery/channels/registry.ts',
    );
  });

  test('contract/channel-kinds.ts is what the declarations give (node scripts/contract-fields.ts writes it)', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(CHANNEL_KINDS)), JSON.parse(JSON.stringify(channelKindHints())));
    assert.ok(contractFiles()['contract/channel-kinds.ts']);
  });
});

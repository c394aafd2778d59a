// The limits the dashboard's forms state (contract/limits.ts) are the service's own: each is
// taken at its edge through the RPC, the value at the limit stored and one past it refused with
// the limit in the rule; and no form of the UI restates a limit by hand.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createClient, Periodicity, type StatusdeskClient } from '../client/index.ts';
import { HEADER_LIMITS, MAINTENANCE_LIMITS, MONITOR_LIMITS, PAGE_LIMITS, REPORT_LIMITS } from '../contract/limits.ts';
import { MONITOR_TYPES } from '../contract/monitor-types.ts';
import { assertViolation, startTestService, type TestService } from './support/harness.ts';

const SCREENS = fileURLToPath(new URL('../renderer/src/screens/', import.meta.url));

let service: TestService;
let client: StatusdeskClient;
before(async () => {
  service = await startTestService();
  client = createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: (await service.createKey('write')).secret, env: {} });
});
after(() => service?.stop());

const text = (length: number) => 'x'.repeat(length);
const tcp = (change: Record<string, unknown>) =>
  client.monitors.createTCPMonitor({ monitor: { name: 'limits', uri: 'db.internal:5432', periodicity: Periodicity.PERIODICITY_10M, ...change } });
const http = (change: Record<string, unknown>) =>
  client.monitors.createHTTPMonitor({ monitor: { name: 'limits', url: 'https://example.com/', periodicity: Periodicity.PERIODICITY_10M, ...change } });

/** Asserts that `make(limit)` is stored and `make(past)` refused naming `field`, with `rule`. */
async function edge(make: (value: number) => Promise<unknown>, limit: number, past: number, field: string, rule: RegExp): Promise<void> {
  await make(limit);
  await assertViolation(make(past), field, rule);
}

describe('the limits the forms state', () => {
  test('no form of the dashboard writes a limit of the service by hand: hints and inputs take them from contract/limits.ts', () => {
    const forms = readdirSync(SCREENS, { recursive: true, encoding: 'utf8' }).filter((name) => /^(monitor-form|page-)/.test(name) && /\.tsx?$/.test(name));
    assert.ok(forms.length >= 8, `read ${forms.length} files`);
    const handWritten = /maxLength=\{\d|\bmax="\d|\b(?:at most|up to|default) \d|\d+ (?:characters|KiB)|\b\d+ to \d+\b/gi;
    // What people read: the code without its comments.
    const code = (name: string) => readFileSync(join(SCREENS, name), 'utf8').replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
    const found = forms.flatMap((name) => [...code(name).matchAll(handWritten)].map((match) => `${name}: ${match[0]}`));
    assert.deepEqual(found, []);
  });

  test("the monitor form does not restate a type's declaration: its fields' labels, hints and placeholders are written only in contract/monitor-types.ts", () => {
    const code = readdirSync(join(SCREENS, 'monitor-form'))
      .filter((name) => /\.tsx?$/.test(name))
      .map((name) => [name, readFileSync(join(SCREENS, 'monitor-form', name), 'utf8')] as const);
    const words = Object.values(MONITOR_TYPES).flatMap((type) =>
      type.fields.flatMap((field) => [
        `"${field.label}"`,
        `'${field.label}'`,
        `>${field.label}<`,
        ...('hint' in field ? [field.hint] : []),
        ...('placeholder' in field ? [`"${field.placeholder}"`, `'${field.placeholder}'`] : []),
      ]),
    );
    const restated = code.flatMap(([name, text]) => words.filter((word) => text.includes(word)).map((word) => `${name}: ${word}`));
    assert.deepEqual(restated, []);
  });

  test('a monitor: name, description, tags, timeout, retries, private locations and the port are refused one past the limit, in those words', async () => {
    const m = MONITOR_LIMITS;
    await edge((n) => tcp({ name: text(n) }), m.nameLength, m.nameLength + 1, 'monitor.name', new RegExp(`at most ${m.nameLength} characters`));
    await edge(
      (n) => tcp({ description: text(n) }),
      m.descriptionLength,
      m.descriptionLength + 1,
      'monitor.description',
      new RegExp(`at most ${m.descriptionLength} characters`),
    );
    await edge((n) => tcp({ tags: Array.from({ length: n }, (_, i) => `t${i}`) }), m.tags, m.tags + 1, 'monitor.tags', new RegExp(`at most ${m.tags} tags`));
    await edge((n) => tcp({ tags: [text(n)] }), m.tagLength, m.tagLength + 1, 'monitor.tags.0', new RegExp(`at most ${m.tagLength} characters`));
    await edge(
      (ms) => tcp({ timeout: { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 } }),
      m.timeoutMs.max,
      m.timeoutMs.max + 1,
      'monitor.timeout',
      new RegExp(`at most ${m.timeoutMs.max / 1000} s`),
    );
    await assertViolation(tcp({ timeout: { nanos: (m.timeoutMs.min - 1) * 1e6 } }), 'monitor.timeout', new RegExp(`at least ${m.timeoutMs.min} ms`));
    await edge((n) => tcp({ retry: n }), m.retry.max, m.retry.max + 1, 'monitor.retry', new RegExp(`0 to ${m.retry.max}`));
    await edge((port) => tcp({ uri: `db.internal:${port}` }), m.port.max, m.port.max + 1, 'monitor.uri', new RegExp(`from ${m.port.min} to ${m.port.max}`));
    await assertViolation(
      tcp({ privateLocations: Array.from({ length: m.privateLocations + 1 }, (_, i) => String(i + 1)) }),
      'monitor.privateLocations',
      new RegExp(`at most ${m.privateLocations}`),
    );
    const { monitor } = await tcp({});
    const stored = (await client.monitors.getMonitor({ id: monitor!.id })).monitor.value as { retry?: number; timeout?: { seconds: bigint } };
    assert.deepEqual([stored.retry, Number(stored.timeout?.seconds) * 1000], [m.retry.default, m.timeoutMs.default], 'the defaults the form states');
  });

  test('an HTTP monitor: headers, body, assertions and their targets, and a gRPC service name, are refused one past the limit', async () => {
    const m = MONITOR_LIMITS;
    const headers = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`x-h${i}`, 'v']));
    await edge(
      (n) => http({ headers: headers(n) }),
      HEADER_LIMITS.entries,
      HEADER_LIMITS.entries + 1,
      'monitor.headers',
      new RegExp(`at most ${HEADER_LIMITS.entries} entries`),
    );
    const sized = (bytes: number) => ({ 'x-big': text(bytes - 'x-big'.length) });
    await edge(
      (n) => http({ headers: sized(n) }),
      HEADER_LIMITS.bytes,
      HEADER_LIMITS.bytes + 1,
      'monitor.headers',
      new RegExp(`at most ${HEADER_LIMITS.bytes} bytes`),
    );
    await edge((n) => http({ method: 3, body: text(n) }), m.bodyBytes, m.bodyBytes + 1, 'monitor.body', new RegExp(`at most ${m.bodyBytes} bytes`));
    const statusCodes = (n: number) => Array.from({ length: n }, () => ({ comparator: 1, target: 200 }));
    await edge(
      (n) => http({ statusCodeAssertions: statusCodes(n) }),
      m.assertions,
      m.assertions + 1,
      'monitor.statusCodeAssertions',
      new RegExp(`at most ${m.assertions} assertions`),
    );
    await edge(
      (code) => http({ statusCodeAssertions: [{ comparator: 1, target: code }] }),
      m.statusCode.max,
      m.statusCode.max + 1,
      'monitor.statusCodeAssertions.0.target',
      new RegExp(`from ${m.statusCode.min} to ${m.statusCode.max}`),
    );
    await edge(
      (n) => http({ headerAssertions: [{ key: 'etag', comparator: 1, target: text(n) }] }),
      m.headerAssertionTargetLength,
      m.headerAssertionTargetLength + 1,
      'monitor.headerAssertions.0.target',
      new RegExp(`at most ${m.headerAssertionTargetLength} characters`),
    );
    await edge(
      (n) => http({ bodyAssertions: [{ comparator: 1, target: text(n) }] }),
      m.bodyAssertionTargetLength,
      m.bodyAssertionTargetLength + 1,
      'monitor.bodyAssertions.0.target',
      new RegExp(`at most ${m.bodyAssertionTargetLength} characters`),
    );
    const grpc = (n: number) =>
      client.monitors.createGRPCMonitor({
        monitor: {
          name: 'limits',
          uri: 'api.internal:50051',
          service: `a${'.b'.repeat((n - 1) / 2)}`,
          periodicity: Periodicity.PERIODICITY_10M,
          regions: ['iad'],
        },
      });
    const odd = (n: number) => (n % 2 === 1 ? n : n - 1);
    await grpc(odd(m.serviceNameLength));
    await assertViolation(grpc(odd(m.serviceNameLength) + 2), 'monitor.service', new RegExp(`at most ${m.serviceNameLength} characters`));
  });

  test('a page, its components, a status report and a maintenance window are refused one past their limits', async () => {
    const slug = `limits-${Date.now()}`;
    await assertViolation(
      client.pages.createStatusPage({ slug, title: text(PAGE_LIMITS.titleLength + 1) }),
      'title',
      new RegExp(`at most ${PAGE_LIMITS.titleLength} characters`),
    );
    const { statusPage } = await client.pages.createStatusPage({
      slug,
      title: text(PAGE_LIMITS.titleLength),
      description: text(PAGE_LIMITS.descriptionLength),
    });
    const pageId = statusPage!.id;
    await edge(
      (n) => client.pages.addPageComponent({ pageId, name: text(n) }),
      PAGE_LIMITS.componentNameLength,
      PAGE_LIMITS.componentNameLength + 1,
      'name',
      new RegExp(`at most ${PAGE_LIMITS.componentNameLength} characters`),
    );
    await edge(
      (n) => client.pages.addPageComponent({ pageId, name: 'grouped', group: text(n) }),
      PAGE_LIMITS.componentGroupLength,
      PAGE_LIMITS.componentGroupLength + 1,
      'group',
      new RegExp(`at most ${PAGE_LIMITS.componentGroupLength} characters`),
    );
    const report = (title: number, message: number) =>
      client.reports.createStatusReport({ pageId, title: text(title), status: 1, message: text(message), notify: false });
    await edge(
      (n) => report(n, 1),
      REPORT_LIMITS.titleLength,
      REPORT_LIMITS.titleLength + 1,
      'title',
      new RegExp(`at most ${REPORT_LIMITS.titleLength} characters`),
    );
    await edge(
      (n) => report(1, n),
      REPORT_LIMITS.messageLength,
      REPORT_LIMITS.messageLength + 1,
      'message',
      new RegExp(`at most ${REPORT_LIMITS.messageLength} characters`),
    );
    const from = new Date(Date.now() + 3_600_000).toISOString();
    const to = new Date(Date.now() + 7_200_000).toISOString();
    const window = (title: number, message: number) =>
      client.maintenances.createMaintenance({ pageId, title: text(title), message: text(message), from, to, notify: false });
    await edge(
      (n) => window(n, 1),
      MAINTENANCE_LIMITS.titleLength,
      MAINTENANCE_LIMITS.titleLength + 1,
      'title',
      new RegExp(`at most ${MAINTENANCE_LIMITS.titleLength} characters`),
    );
    await edge(
      (n) => window(1, n),
      MAINTENANCE_LIMITS.messageLength,
      MAINTENANCE_LIMITS.messageLength + 1,
      'message',
      new RegExp(`at most ${MAINTENANCE_LIMITS.messageLength} characters`),
    );
  });
});

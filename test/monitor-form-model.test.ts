// The monitor form's model in Node: how a stored monitor fills the form, and how what is typed
// becomes the monitor.v1 messages of a create or an update (checked against the generated
// schemas by encoding them), without React or a browser.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { create, toJson } from '@bufbuild/protobuf';
import { durationMs } from '@bufbuild/protobuf/wkt';
import {
  CreateGRPCMonitorRequestSchema,
  CreateHTTPMonitorRequestSchema,
  CreateMCPMonitorRequestSchema,
  CreateTCPMonitorRequestSchema,
  GRPCMonitorSchema,
  HTTPMethod,
  HTTPMonitorSchema,
  MCPMonitorSchema,
  MCPTransport,
  NumberComparator,
  Periodicity,
  StringComparator,
  TCPMonitorSchema,
  TLSMode,
  TLSModeSchema,
  UpdateGRPCMonitorRequestSchema,
  UpdateHTTPMonitorRequestSchema,
  UpdateMCPMonitorRequestSchema,
  UpdateTCPMonitorRequestSchema,
} from '../proto/gen/monitor/v1/monitor_pb.js';
import {
  argsOf,
  createOf,
  emptyForm,
  formOf,
  joinTarget,
  keptOrder,
  type MonitorFormValues,
  newStatusCodeRow,
  REDACTED,
  splitTarget,
  updateOf,
  type WireMonitor,
  type WireUpdate,
  wireOf,
} from '../renderer/src/screens/monitor-form/monitor-form-model.ts';
import { claimableFields, failureOf, rowMessage } from '../renderer/src/screens/monitor-form/monitor-form-refusal.ts';
import {
  declaredOf,
  editorOf,
  FORM_TYPES,
  listLimits,
  MCP_TRANSPORT_FIELDS,
  plainFieldsOf,
  shownFor,
  textListLimits,
  typeOf,
  wireEnum,
  wordOf,
} from '../renderer/src/screens/monitor-form/type-fields.ts';
import { MONITOR_TYPES } from '../contract/monitor-types.ts';
import { inputOf, limitsOf } from '../renderer/src/declared-input.ts';
import { HTTPMethodSchema } from '../proto/gen/monitor/v1/monitor_pb.js';

const MODELS = ['monitor-form-model.ts', 'monitor-form-refusal.ts', 'type-fields.ts'].map((name) =>
  fileURLToPath(new URL(`../renderer/src/screens/monitor-form/${name}`, import.meta.url)),
);

/** A stored HTTP monitor as GetMonitor answers it: a credential header shown redacted. */
const storedHttp = () =>
  create(HTTPMonitorSchema, {
    id: '7',
    name: 'Checkout',
    url: 'https://shop.example/health',
    method: HTTPMethod.HTTP_METHOD_POST,
    headers: { Authorization: REDACTED, 'X-Probe': 'form' },
    body: '{}',
    followRedirects: false,
    statusCodeAssertions: [{ comparator: NumberComparator.EQUAL, target: 200 }],
    headerAssertions: [{ key: 'content-type', comparator: StringComparator.CONTAINS, target: 'json' }],
    bodyAssertions: [{ comparator: StringComparator.NOT_EMPTY, target: '' }],
    periodicity: Periodicity.PERIODICITY_5M,
    regions: ['iad', 'fra'],
    timeout: { seconds: 5n },
    retry: 1,
    tags: ['api'],
    openTelemetry: { endpoint: 'http://127.0.0.1:4318/v1/metrics', headers: { authorization: REDACTED } },
  });

/** The wire message encoded as the client sends it: fails when the model's shape is not the schema's. */
function encodedCreate(wire: WireMonitor) {
  switch (wire.type) {
    case 'tcp':
      return toJson(CreateTCPMonitorRequestSchema, create(CreateTCPMonitorRequestSchema, { monitor: wire.monitor }));
    case 'grpc':
      return toJson(CreateGRPCMonitorRequestSchema, create(CreateGRPCMonitorRequestSchema, { monitor: wire.monitor }));
    case 'http':
      return toJson(CreateHTTPMonitorRequestSchema, create(CreateHTTPMonitorRequestSchema, { monitor: wire.monitor }));
    case 'mcp':
      return toJson(CreateMCPMonitorRequestSchema, create(CreateMCPMonitorRequestSchema, { monitor: wire.monitor }));
  }
}

function encodedUpdate(id: string, update: WireUpdate) {
  switch (update.type) {
    case 'tcp':
      return toJson(UpdateTCPMonitorRequestSchema, create(UpdateTCPMonitorRequestSchema, { id, monitor: update.monitor, updateMask: update.updateMask }));
    case 'grpc':
      return toJson(UpdateGRPCMonitorRequestSchema, create(UpdateGRPCMonitorRequestSchema, { id, monitor: update.monitor, updateMask: update.updateMask }));
    case 'http':
      return toJson(UpdateHTTPMonitorRequestSchema, create(UpdateHTTPMonitorRequestSchema, { id, monitor: update.monitor, updateMask: update.updateMask }));
    case 'mcp':
      return toJson(UpdateMCPMonitorRequestSchema, create(UpdateMCPMonitorRequestSchema, { id, monitor: update.monitor, updateMask: update.updateMask }));
  }
}

const typed = (change: Partial<MonitorFormValues>): MonitorFormValues => ({ ...emptyForm(), ...change });

/** A stored stdio MCP monitor as GetMonitor answers it: every value of its environment redacted. */
const storedStdio = () =>
  create(MCPMonitorSchema, {
    id: '12',
    name: 'Notes server',
    server: 'node',
    transport: MCPTransport.MCP_TRANSPORT_STDIO,
    args: ['server.js', '--read-only'],
    env: { PATH: REDACTED, API_TOKEN: REDACTED },
    cwd: '/srv/notes',
    allowCommand: true,
    periodicity: Periodicity.PERIODICITY_10M,
  });

/** A row of a list editor as typed. */
const row = (name: string, value: string) => ({ key: `${name}-row`, name, value });

describe('the monitor form model', () => {
  test('is plain TypeScript: nothing it imports, however deep, is React, a .tsx file or the DOM-bound API module', () => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]/gm)) {
        assert.ok(!/^react(-dom|-hook-form)?(\/|$)/.test(specifier!), `${file} imports ${specifier}`);
        if (!specifier!.startsWith('.')) continue;
        assert.ok(!specifier!.endsWith('.tsx') && !specifier!.endsWith('/api.ts'), `${file} imports ${specifier}`);
        if (specifier!.endsWith('.ts')) visit(resolve(dirname(file), specifier!));
      }
    };
    for (const model of MODELS) visit(model);
    assert.ok(seen.size >= 5, `walked ${seen.size} files`);
  });

  test('a new TCP monitor: numbers typed as text become a Duration and an int, the target joins host and port, and switches at their default are left to the service', () => {
    const { wire, local } = createOf(
      'tcp',
      typed({
        name: 'Database',
        host: '127.0.0.1',
        port: ' 5432 ',
        tags: ['db'],
        periodicity: Periodicity.PERIODICITY_1M,
        regions: ['iad'],
        timeoutSeconds: '2.5',
        degradedMs: '250',
        retry: '0',
      }),
    );
    assert.deepEqual(local, []);
    assert.equal(wire.type, 'tcp');
    assert.deepEqual(encodedCreate(wire), {
      monitor: {
        name: 'Database',
        uri: '127.0.0.1:5432',
        periodicity: 'PERIODICITY_1M',
        regions: ['iad'],
        timeout: '2.500s',
        degraded: '0.250s',
        retry: 0,
        tags: ['db'],
      },
    });
    assert.equal(wire.monitor.active, undefined, 'active is the default: not sent');
    const paused = createOf('tcp', typed({ active: false })).wire.monitor;
    assert.equal(paused.active, false);
  });

  test('a new gRPC monitor brackets an IPv6 host, trims the service name, and sends its metadata as a map', () => {
    const { wire } = createOf(
      'grpc',
      typed({
        name: 'Health',
        host: '::1',
        port: '50051',
        service: ' my.pkg.Api ',
        tls: 'plaintext',
        metadata: [
          { key: 'r1', name: ' x-team ', value: 'core' },
          { key: 'r2', name: '', value: 'ignored' },
        ],
      }),
    );
    assert.deepEqual(encodedCreate(wire), {
      monitor: { name: 'Health', uri: '[::1]:50051', service: 'my.pkg.Api', tls: 'TLS_MODE_PLAINTEXT', metadata: { 'x-team': 'core' } },
    });
  });

  test('a new HTTP monitor carries its assertions typed, a target left out for empty / not empty, and no OTLP export without an endpoint or headers', () => {
    const form = typed({
      name: 'Web',
      url: ' https://example.com/ ',
      method: 'PUT',
      body: 'x',
      followRedirects: false,
      statusCodeAssertions: [{ key: 'a', comparator: NumberComparator.LESS_THAN, target: '400' }],
      headerAssertions: [{ key: 'b', name: ' etag ', comparator: StringComparator.NOT_EMPTY, target: 'typed before the comparator changed' }],
      bodyAssertions: [{ key: 'c', comparator: StringComparator.CONTAINS, target: 'ok' }],
    });
    const { wire, local } = createOf('http', form);
    assert.deepEqual(local, []);
    assert.deepEqual(encodedCreate(wire), {
      monitor: {
        name: 'Web',
        url: 'https://example.com/',
        method: 'HTTP_METHOD_PUT',
        body: 'x',
        followRedirects: false,
        statusCodeAssertions: [{ comparator: 'NUMBER_COMPARATOR_LESS_THAN', target: 400 }],
        headerAssertions: [{ key: 'etag', comparator: 'STRING_COMPARATOR_NOT_EMPTY' }],
        bodyAssertions: [{ comparator: 'STRING_COMPARATOR_CONTAINS', target: 'ok' }],
      },
    });
    assert.equal(wire.monitor.openTelemetry, undefined);
  });

  test('values the wire cannot carry are refused before sending, named as the service names them', () => {
    const { local } = wireOf(
      'http',
      typed({ degradedMs: '1.5', retry: '2.5', statusCodeAssertions: [{ key: 'a', comparator: NumberComparator.EQUAL, target: '200.5' }] }),
    );
    assert.deepEqual(local, [
      { field: 'monitor.degraded', rule: 'must be whole milliseconds' },
      { field: 'monitor.retry', rule: 'must be a whole number' },
      { field: 'monitor.statusCodeAssertions.0.target', rule: 'must be a status code from 100 to 599' },
    ]);
  });

  test('a stored HTTP monitor fills the form: hidden values start empty and marked kept, and are sent back as [redacted]', () => {
    const form = formOf({ type: 'http', monitor: storedHttp() });
    assert.deepEqual(
      form.headers.map(({ name, value, kept }) => ({ name, value, kept })),
      [
        { name: 'Authorization', value: '', kept: true },
        { name: 'X-Probe', value: 'form', kept: false },
      ],
    );
    assert.deepEqual([form.timeoutSeconds, form.retry, form.degradedMs, form.followRedirects, form.method], ['5', '1', '', false, 'POST']);
    assert.deepEqual(
      form.statusCodeAssertions.map((r) => [r.comparator, r.target]),
      [[NumberComparator.EQUAL, '200']],
    );
    const { wire } = wireOf('http', form);
    assert.equal(wire.type, 'http');
    assert.deepEqual(wire.type === 'http' ? wire.monitor.headers : undefined, { Authorization: REDACTED, 'X-Probe': 'form' });
    assert.deepEqual(wire.monitor.openTelemetry, { endpoint: 'http://127.0.0.1:4318/v1/metrics', headers: { authorization: REDACTED } });
    assert.equal(durationMs(create(HTTPMonitorSchema, wire.monitor as never).timeout!), 5000);
  });

  test('a stored gRPC or TCP target splits into host and port, an IPv6 host without its brackets', () => {
    const grpc = formOf({ type: 'grpc', monitor: create(GRPCMonitorSchema, { uri: '[2001:db8::1]:443', metadata: { authorization: REDACTED } }) });
    assert.deepEqual([grpc.host, grpc.port, grpc.tls], ['2001:db8::1', '443', 'verify']);
    assert.equal(grpc.metadata[0]?.kept, true);
    const tcp = formOf({ type: 'tcp', monitor: create(TCPMonitorSchema, { uri: 'db.internal:5432', active: false }) });
    assert.deepEqual([tcp.host, tcp.port, tcp.active], ['db.internal', '5432', false]);
    assert.deepEqual(splitTarget('no-port'), { host: 'no-port', port: '' });
    assert.equal(joinTarget(' ', ' '), '');
    assert.equal(joinTarget('grpc://x', '1'), 'grpc://x:1', 'a scheme is left for the service to refuse');
  });

  test('an update sends only the fields marked changed, named in the mask by their proto names', () => {
    const form = formOf({ type: 'http', monitor: storedHttp() });
    const edited = { ...form, name: 'Renamed', followRedirects: true, otlpHeaders: form.otlpHeaders, degradedMs: '' };
    const { update } = updateOf('http', edited, { name: true, followRedirects: true, otlpHeaders: [{ value: true }], degradedMs: true });
    assert.ok(update);
    assert.deepEqual(update.updateMask.paths, ['name', 'follow_redirects', 'degraded', 'open_telemetry'], 'in the order of the form');
    assert.deepEqual(encodedUpdate('7', update), {
      id: '7',
      monitor: {
        name: 'Renamed',
        followRedirects: true,
        openTelemetry: { endpoint: 'http://127.0.0.1:4318/v1/metrics', headers: { authorization: REDACTED } },
      },
      updateMask: 'name,followRedirects,degraded,openTelemetry',
    });
  });

  test('the target is one wire field: host or port changed sends uri; a field the type does not have is not sent; marks that are all false are no change', () => {
    const form = typed({ host: 'db.internal', port: '5433' });
    assert.deepEqual(updateOf('tcp', form, { port: true, service: true, url: true })?.update?.updateMask.paths, ['uri']);
    assert.deepEqual(updateOf('tcp', form, { host: true, port: true })?.update?.monitor, { uri: 'db.internal:5433' });
    assert.equal(updateOf('tcp', form, {}).update, undefined);
    assert.equal(updateOf('http', form, { headers: [{ name: false, value: false }], tags: false }).update, undefined);
    const grpc = updateOf('grpc', typed({ tls: 'skip-verify', privateLocations: ['3'] }), { tls: true, privateLocations: [true] }).update!;
    assert.deepEqual(encodedUpdate('9', grpc), {
      id: '9',
      monitor: { tls: 'TLS_MODE_SKIP_VERIFY', privateLocations: ['3'] },
      updateMask: 'tls,privateLocations',
    });
  });

  test('a new MCP monitor over Streamable HTTP sends its URL and headers, and none of the fields of stdio, even typed before switching', () => {
    const form = typed({
      name: 'Docs server',
      periodicity: Periodicity.PERIODICITY_5M,
      server: ' https://mcp.example.com/mcp ',
      transport: 'http',
      headers: [row('Authorization', 'Bearer t0ken')],
      args: 'server.js',
      env: [row('API_TOKEN', 'x')],
      cwd: '/tmp',
      allowCommand: true,
    });
    const { wire, local } = createOf('mcp', form);
    assert.deepEqual(local, []);
    assert.deepEqual(encodedCreate(wire), {
      monitor: {
        name: 'Docs server',
        periodicity: 'PERIODICITY_5M',
        server: 'https://mcp.example.com/mcp',
        transport: 'MCP_TRANSPORT_HTTP',
        headers: { Authorization: 'Bearer t0ken' },
      },
    });
  });

  test('a new MCP monitor over stdio sends its command, one argument per line, its environment, folder and consent; no headers', () => {
    const form = typed({
      name: 'Notes server',
      periodicity: Periodicity.PERIODICITY_10M,
      server: 'node',
      transport: 'stdio',
      headers: [row('Authorization', 'Bearer t0ken')],
      args: 'server.js\r\n\n--root= /notes \n',
      env: [row('PATH', '/usr/bin'), row(' ', 'no name: left out')],
      cwd: ' /srv/notes ',
      allowCommand: true,
    });
    assert.deepEqual(encodedCreate(createOf('mcp', form).wire), {
      monitor: {
        name: 'Notes server',
        periodicity: 'PERIODICITY_10M',
        server: 'node',
        transport: 'MCP_TRANSPORT_STDIO',
        args: ['server.js', '--root= /notes '],
        env: { PATH: '/usr/bin' },
        cwd: '/srv/notes',
        allowCommand: true,
      },
    });
    // Without the consent, the switch at its default is left to the service, which refuses it naming the field.
    const withoutConsent = createOf('mcp', { ...form, allowCommand: false }).wire;
    assert.equal(withoutConsent.type === 'mcp' ? withoutConsent.monitor.allowCommand : 'other', undefined);
    assert.deepEqual(argsOf(''), []);
  });

  test('a stored stdio MCP monitor fills the form: every environment value hidden and kept, the arguments one per line; an edit sends only what changed', () => {
    const form = formOf({ type: 'mcp', monitor: storedStdio() });
    assert.deepEqual([form.server, form.transport, form.args, form.cwd, form.allowCommand], ['node', 'stdio', 'server.js\n--read-only', '/srv/notes', true]);
    assert.deepEqual(
      form.env.map(({ name, value, kept }) => ({ name, value, kept })),
      [
        { name: 'PATH', value: '', kept: true },
        { name: 'API_TOKEN', value: '', kept: true },
      ],
    );
    // One value typed anew, the other left as it was: the one left goes back as [redacted], which keeps it.
    const edited = { ...form, env: [form.env[0]!, { ...form.env[1]!, value: 'new-token' }] };
    const { update } = updateOf('mcp', edited, { env: [undefined, { value: true }] });
    assert.ok(update);
    assert.deepEqual(encodedUpdate('12', update), {
      id: '12',
      monitor: { env: { PATH: REDACTED, API_TOKEN: 'new-token' } },
      updateMask: 'env',
    });
    const { update: renamed } = updateOf('mcp', { ...form, name: 'Notes' }, { name: true });
    assert.deepEqual(renamed && encodedUpdate('12', renamed), { id: '12', monitor: { name: 'Notes' }, updateMask: 'name' });
  });

  test('an MCP monitor moved to the other transport empties the fields of the one it left, in the mask and absent from the message', () => {
    const form = formOf({ type: 'mcp', monitor: storedStdio() });
    const toHttp = { ...form, transport: 'http' as const, server: 'https://mcp.example.com/mcp' };
    const { update } = updateOf('mcp', toHttp, { transport: true, server: true });
    assert.ok(update);
    assert.deepEqual(update.updateMask.paths, ['server', 'transport', 'args', 'env', 'cwd', 'allow_command']);
    assert.deepEqual(encodedUpdate('12', update), {
      id: '12',
      monitor: { server: 'https://mcp.example.com/mcp', transport: 'MCP_TRANSPORT_HTTP' },
      updateMask: 'server,transport,args,env,cwd,allowCommand',
    });
    const back = updateOf('mcp', { ...typed({ transport: 'stdio', server: 'node', allowCommand: true }) }, { transport: true, allowCommand: true }).update!;
    assert.deepEqual(back.updateMask.paths, ['transport', 'allow_command', 'headers']);
  });

  test("an MCP monitor's form: the transport, folder and consent are plain; the fields of the other transport are hidden; limits are the declaration's", () => {
    assert.deepEqual(
      plainFieldsOf('mcp').map((spec) => [spec.name, editorOf('mcp', spec)]),
      [
        ['transport', 'choice'],
        ['cwd', 'text'],
        ['allowCommand', 'check'],
      ],
    );
    const names = typeOf('mcp').fields.map((f) => f.name);
    assert.deepEqual(
      names.filter((name) => shownFor('mcp', name, 'http')),
      ['server', 'transport', 'headers'],
    );
    assert.deepEqual(
      names.filter((name) => shownFor('mcp', name, 'stdio')),
      ['server', 'transport', 'args', 'env', 'cwd', 'allowCommand'],
    );
    assert.ok(shownFor('http', 'headers', 'stdio'), 'another type shows all its fields');
    assert.deepEqual(Object.keys(MCP_TRANSPORT_FIELDS), MONITOR_TYPES.mcp.fields[1].schema.enum);
    const args = MONITOR_TYPES.mcp.fields[3];
    assert.deepEqual(textListLimits(args), { items: args.schema.maxItems, maxLength: args.schema.items.maxLength });
    assert.deepEqual(
      [emptyForm().transport, emptyForm().allowCommand, emptyForm().cwd],
      [MONITOR_TYPES.mcp.fields[1].schema.default, MONITOR_TYPES.mcp.fields[6].schema.default, MONITOR_TYPES.mcp.fields[5].schema.default],
    );
    // A refusal about one variable of the environment is claimed by its row.
    const failure = failureOf(
      {
        violations: [
          { field: 'monitor.env.API_TOKEN', rule: 'bad value' },
          { field: 'monitor.allowCommand', rule: 'must be true' },
        ],
      },
      'mcp',
      typed({ transport: 'stdio', env: [row('API_TOKEN', 'x')] }),
    );
    assert.equal(failure.errors.of('monitor.env.API_TOKEN'), 'bad value');
    assert.equal(failure.errors.of('monitor.allowCommand'), 'must be true');
    assert.deepEqual(failure.errors.unclaimed, []);
  });

  test('a list whose order means nothing returns to its stored order when it holds the stored values again', () => {
    assert.deepEqual(keptOrder(['fra', 'iad'], ['iad', 'fra']), ['iad', 'fra']);
    assert.deepEqual(keptOrder(['fra'], ['iad', 'fra']), ['fra']);
    assert.deepEqual(keptOrder(['fra', 'iad', 'ams'], ['iad', 'fra']), ['fra', 'iad', 'ams']);
  });

  test("a refusal is matched to the form as it was sent: the port is blamed only for a port that cannot be one, and an assertion's message follows its row", () => {
    const refusal = (field: string, rule: string) => ({ violations: [{ field, rule }] });
    const sent = typed({ host: '127.0.0.1', port: '70000' });
    assert.equal(failureOf(refusal('monitor.uri', 'bad port'), 'grpc', sent).targetAt, 'port');
    assert.equal(failureOf(refusal('monitor.uri', 'scheme'), 'grpc', { ...sent, host: 'grpc://127.0.0.1', port: '50051' }).targetAt, 'host');
    assert.equal(failureOf(refusal('monitor.uri', 'missing'), 'tcp', { ...sent, host: ' ' }).targetAt, 'host');

    const first = newStatusCodeRow();
    const second = newStatusCodeRow();
    const form = typed({ statusCodeAssertions: [first, second], headers: [{ key: 'h', name: 'Authorization', value: 'x' }] });
    const failure = failureOf(
      {
        violations: [
          { field: 'monitor.statusCodeAssertions.1.target', rule: 'must be a status code from 100 to 599' },
          { field: 'monitor.headers.Authorization', rule: 'bad value' },
          { field: 'monitor.nope', rule: 'other' },
        ],
      },
      'http',
      form,
    );
    assert.equal(rowMessage(failure, 'statusCodeAssertions', second.key, 'target'), 'must be a status code from 100 to 599');
    assert.equal(rowMessage(failure, 'statusCodeAssertions', first.key, 'target'), undefined);
    assert.equal(rowMessage(failure, 'statusCodeAssertions', newStatusCodeRow().key, 'target'), undefined, 'a row added since has no message');
    assert.equal(failure.errors.of('monitor.headers.Authorization'), 'bad value');
    assert.deepEqual(failure.errors.unclaimed, [{ field: 'monitor.nope', rule: 'other' }]);
  });

  test("a type's own fields come from its declaration: a new form starts at the service's defaults, and each choice is its declared word", () => {
    const form = emptyForm();
    assert.deepEqual(
      [form.tls, form.method, form.followRedirects, form.service, form.body],
      [MONITOR_TYPES.grpc.fields[2].schema.default, MONITOR_TYPES.http.fields[1].schema.default, true, '', ''],
    );
    // Every word of a choice is a value of its wire enum, there and back, as the service's codec reads it.
    for (const word of MONITOR_TYPES.grpc.fields[2].schema.enum) assert.equal(wordOf(TLSModeSchema, wireEnum(TLSModeSchema, word), [word]), word);
    for (const word of MONITOR_TYPES.http.fields[1].schema.enum) assert.equal(wordOf(HTTPMethodSchema, wireEnum(HTTPMethodSchema, word), [word]), word);
    assert.equal(wireEnum(TLSModeSchema, 'skip-verify'), TLSMode.TLS_MODE_SKIP_VERIFY);
    assert.equal(wireEnum(HTTPMethodSchema, 'OPTIONS'), HTTPMethod.HTTP_METHOD_OPTIONS);
    assert.equal(wordOf(TLSModeSchema, TLSMode.TLS_MODE_UNSPECIFIED, ['verify']), undefined, 'unspecified is no word: the form shows the default');
    assert.throws(() => wireEnum(TLSModeSchema, 'sometimes'), /no value for "sometimes"/);
  });

  test("the plain fields are drawn from the contract and the others by their own editors; the assertions' bounds are the declaration's", () => {
    const plain = (type: (typeof FORM_TYPES)[number]) => plainFieldsOf(type).map((spec) => [spec.name, editorOf(type, spec)]);
    assert.deepEqual(plain('tcp'), [], 'a host:port target is two inputs of its own');
    assert.deepEqual(plain('grpc'), [
      ['service', 'text'],
      ['tls', 'choice'],
    ]);
    assert.deepEqual(plain('http'), [
      ['url', 'url'],
      ['method', 'choice'],
      ['followRedirects', 'check'],
    ]);
    const service = declaredOf('grpc', plainFieldsOf('grpc')[0]!);
    assert.deepEqual([inputOf(service), limitsOf(service.schema).maxLength], ['text', MONITOR_TYPES.grpc.fields[1].schema.maxLength]);
    assert.equal(inputOf(declaredOf('http', plainFieldsOf('http')[0]!)), 'url', 'a URL target is a URL input');
    const codes = MONITOR_TYPES.http.fields[5].schema;
    assert.deepEqual(listLimits('statusCodeAssertions'), {
      items: codes.maxItems,
      min: codes.items.properties.target.minimum,
      max: codes.items.properties.target.maximum,
      maxLength: undefined,
    });
    assert.equal(listLimits('headerAssertions').maxLength, MONITOR_TYPES.http.fields[6].schema.items.properties.target.maxLength);
    assert.equal(listLimits('bodyAssertions').maxLength, MONITOR_TYPES.http.fields[7].schema.items.properties.target.maxLength);
  });

  test('a refusal can name any field a type declares', () => {
    for (const type of FORM_TYPES) {
      const names = claimableFields(type, emptyForm());
      for (const field of typeOf(type).fields) assert.ok(names.includes(`monitor.${field.name}`), `${type}: ${field.name}`);
    }
  });
});

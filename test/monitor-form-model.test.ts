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
  CreateTCPMonitorRequestSchema,
  GRPCMonitorSchema,
  HTTPMethod,
  HTTPMonitorSchema,
  NumberComparator,
  Periodicity,
  StringComparator,
  TCPMonitorSchema,
  TLSMode,
  UpdateGRPCMonitorRequestSchema,
  UpdateHTTPMonitorRequestSchema,
  UpdateTCPMonitorRequestSchema,
} from '../proto/gen/monitor/v1/monitor_pb.js';
import {
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
import { failureOf, rowMessage } from '../renderer/src/screens/monitor-form/monitor-form-refusal.ts';

const MODELS = ['monitor-form-model.ts', 'monitor-form-refusal.ts'].map((name) =>
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
  }
}

const typed = (change: Partial<MonitorFormValues>): MonitorFormValues => ({ ...emptyForm(), ...change });

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
        tls: TLSMode.TLS_MODE_PLAINTEXT,
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
      method: HTTPMethod.HTTP_METHOD_PUT,
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
    assert.deepEqual([form.timeoutSeconds, form.retry, form.degradedMs, form.followRedirects, form.method], ['5', '1', '', false, HTTPMethod.HTTP_METHOD_POST]);
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
    assert.deepEqual([grpc.host, grpc.port, grpc.tls], ['2001:db8::1', '443', TLSMode.TLS_MODE_VERIFY]);
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
    const grpc = updateOf('grpc', typed({ tls: TLSMode.TLS_MODE_SKIP_VERIFY, privateLocations: ['3'] }), { tls: true, privateLocations: [true] }).update!;
    assert.deepEqual(encodedUpdate('9', grpc), {
      id: '9',
      monitor: { tls: 'TLS_MODE_SKIP_VERIFY', privateLocations: ['3'] },
      updateMask: 'tls,privateLocations',
    });
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
});

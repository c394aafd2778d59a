import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { openTestDatabase } from './support/database.ts';
import { IdentitySchema } from '../server/rest/schemas.ts';
import { hashSecret, newSecret } from '../server/domain/secrets.ts';
import { json, startTestService, type TestService } from './support/harness.ts';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service.stop());

async function whoami(key: string) {
  const response = await service.api('/v1/whoami', { key });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  return json(response);
}

describe('GET /v1/whoami', () => {
  test('answers a read key with exactly the identity fields', async () => {
    const { id, secret } = await service.createKey('read');
    const body = await whoami(secret);
    assert.deepEqual(Object.keys(body).sort(), ['actor', 'name', 'plan', 'slug']);
    assert.equal(body.slug, 'personal');
    assert.equal(body.plan, 'scale');
    assert.equal(typeof body.name, 'string');
    assert.deepEqual(body.actor, { type: 'apiKey', keyId: id, scopes: ['read'] });
    // The schema the OpenAPI document is generated from describes exactly what is sent.
    assert.deepEqual(IdentitySchema.parse(body), body);
  });

  test('answers a write key with scopes [write]', async () => {
    const { id, secret } = await service.createKey('write');
    assert.deepEqual((await whoami(secret)).actor, { type: 'apiKey', keyId: id, scopes: ['write'] });
  });

  test('treats a key stored before scopes existed as write', async () => {
    const secret = newSecret('svc_');
    const db = await openTestDatabase(service.dataDir);
    const row = await db
      .insertInto('api_keys')
      .values({
        workspace_id: 1,
        name: 'old key',
        prefix: secret.slice(0, 12),
        secret_hash: hashSecret(secret),
        scopes: null,
        created_by_user_id: null,
        created_at: new Date().toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db.destroy();
    assert.deepEqual((await whoami(secret)).actor, { type: 'apiKey', keyId: String(row.id), scopes: ['write'] });
  });

  test('refuses a request without a key with 401 and the error envelope', async () => {
    const response = await service.api('/v1/whoami');
    assert.equal(response.status, 401);
    const body = await json(response);
    assert.equal(body.code, 'UNAUTHORIZED');
    assert.match(body.message, /x-service-key/);
    assert.equal(body.requestId, response.headers.get('x-request-id'));
    assert.match(body.docs, /\/docs\/reference\/errors#unauthorized$/);
  });
});

describe('GET /openapi.json', () => {
  test('is a valid OpenAPI 3.1 document of every REST path', async () => {
    const response = await service.api('/openapi.json');
    assert.equal(response.status, 200);
    const doc = await json(response);
    assert.equal(doc.openapi, '3.1.0');
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
    assert.deepEqual(Object.keys(doc.paths).sort(), ['/docs/{path}', '/healthz', '/llms.txt', '/openapi.json', '/v1/whoami']);
    assert.deepEqual(doc.components.securitySchemes.apiKey, {
      type: 'apiKey',
      in: 'header',
      name: 'x-service-key',
      description: doc.components.securitySchemes.apiKey.description,
    });
    const whoamiGet = doc.paths['/v1/whoami'].get;
    assert.deepEqual(whoamiGet.security, [{ apiKey: [] }, { oauth: [] }]);
    assert.equal(doc.components.securitySchemes.oauth.type, 'oauth2');
    assert.equal(doc.components.securitySchemes.oauth.flows.authorizationCode.tokenUrl, `${service.apiUrl}/oauth/token`);
    assert.deepEqual(Object.keys(whoamiGet.responses).sort(), ['200', '401', '403']);
    assert.deepEqual(doc.components.schemas.Error.required.sort(), ['code', 'docs', 'message', 'requestId']);
    assert.deepEqual(doc.components.schemas.Identity.required.sort(), ['actor', 'name', 'plan', 'slug']);
    assert.equal(doc.servers[0].url, service.apiUrl);
  });

  test('needs no credentials', async () => {
    assert.equal((await service.api('/openapi.json')).status, 200);
  });

  test('every operation says what credential it takes: none (security []) on the public paths, a defined scheme elsewhere', async () => {
    const doc = await json(await service.api('/openapi.json'));
    const schemes = Object.keys(doc.components.securitySchemes);
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
    );
    const publicOperations: string[] = [];
    for (const { name, operation } of operations) {
      // What a linter's recommended rules ask of each operation (Redocly: security-defined,
      // operation-operationId, operation-4xx-response, operation-summary).
      assert.ok(Array.isArray(operation.security), `${name} declares no security`);
      if (operation.security.length === 0) publicOperations.push(name);
      for (const requirement of operation.security) {
        for (const scheme of Object.keys(requirement)) assert.ok(schemes.includes(scheme), `${name} names the undefined scheme ${scheme}`);
      }
      assert.match(operation.operationId ?? '', /^[a-zA-Z]+$/, `${name} has no operationId`);
      assert.ok(
        Object.keys(operation.responses).some((status) => /^4\d\d$/.test(status)),
        `${name} has no 4xx response`,
      );
      assert.ok(operation.summary, `${name} has no summary`);
    }
    assert.deepEqual(publicOperations.sort(), ['GET /docs/{path}', 'GET /healthz', 'GET /llms.txt', 'GET /openapi.json']);
    const ids = operations.map((o) => o.operation.operationId);
    assert.equal(new Set(ids).size, ids.length, `operationIds repeat: ${ids}`);
    assert.equal(doc.info.license.name, 'MIT');
  });

  test('/healthz is in the document as it answers', async () => {
    const doc = await json(await service.api('/openapi.json'));
    const schema = doc.paths['/healthz'].get.responses['200'].content['application/json'].schema;
    const body = await json(await service.api('/healthz'));
    assert.deepEqual(Object.keys(body).sort(), Object.keys(schema.properties).sort());
    assert.deepEqual(schema.required.sort(), ['status', 'version']);
    assert.equal(body.status, schema.properties.status.const ?? schema.properties.status.enum?.[0]);
  });
});

describe('GET /docs/{path} from a generated client', () => {
  /** The request a client generated from the document sends: the parameter encoded whole, as openapi-fetch does. */
  async function exampleUrl(): Promise<{ example: string; url: string }> {
    const doc = await json(await service.api('/openapi.json'));
    const parameter = doc.paths['/docs/{path}'].get.parameters.find((p: { name: string }) => p.name === 'path');
    const example: string = parameter.schema.example;
    return { example, url: `/docs/{path}`.replace('{path}', encodeURIComponent(example)) };
  }

  test("the document's own example, its slash encoded, is the page a plain path gives", async () => {
    const { example, url } = await exampleUrl();
    assert.equal(example, 'reference/errors');
    assert.equal(url, '/docs/reference%2Ferrors');
    const encoded = await service.api(url);
    assert.equal(encoded.status, 200, await encoded.clone().text());
    assert.match(encoded.headers.get('content-type') ?? '', /^text\/markdown/);
    const plain = await service.api('/docs/reference/errors');
    assert.equal(await encoded.text(), await plain.text());
    // Any mix of encoded and plain slashes, and a lower-case escape, names the same page.
    assert.equal((await service.api('/docs/reference%2fapi-keys')).status, 200);
    assert.equal((await service.api('/docs/guides%2Fgetting-started')).status, 200);
  });

  test('an encoded slash climbs out of the folder no more than a plain one', async () => {
    for (const path of [
      '..%2Fpackage',
      '..%2F..%2Fpackage.json',
      'reference%2F..%2F..%2Fpackage',
      '%2e%2e%2Fpackage',
      '%2Fetc%2Fpasswd',
      'reference%2F%2Ferrors',
      'reference%E0%A4%A',
      'reference%252Ferrors',
    ]) {
      const response = await service.api(`/docs/${path}`);
      assert.equal(response.status, 404, `${path}: ${response.status}`);
      assert.equal((await json(response)).code, 'NOT_FOUND');
    }
  });
});

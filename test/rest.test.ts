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
    assert.deepEqual(Object.keys(doc.paths).sort(), ['/docs/{path}', '/llms.txt', '/v1/whoami']);
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
});

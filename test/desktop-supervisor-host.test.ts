import assert from 'node:assert/strict';
import { type ChildProcess, fork } from 'node:child_process';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { type KeyCipher, loadSealingKey, SEALED_KEY_FILE } from '../main/src/key-store.ts';
import { choosePorts, isPortFree } from '../main/src/ports.ts';
import { createSupervisor, forkedHost, type HostEvent, type SupervisorState } from '../main/src/supervisor.ts';
import { KEY_FILE } from '../server/domain/sealing.ts';
import { perTestCleanup, sessionTokenOf } from './support/harness.ts';
import { until } from './support/wait.ts';

const cleanup = perTestCleanup();
const HOST = new URL('../server/desktop/service-host.ts', import.meta.url).pathname;

/** Plays the system keychain for the sealing key. */
function keychain(): KeyCipher {
  const secret = randomBytes(32);
  return {
    isEncryptionAvailable: () => true,
    encryptString(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', secret, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    decryptString(encrypted) {
      const decipher = createDecipheriv('aes-256-gcm', secret, encrypted.subarray(0, 12));
      decipher.setAuthTag(encrypted.subarray(12, 28));
      return Buffer.concat([decipher.update(encrypted.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/** Two ports nobody holds, taken from the system and let go, as the app's remembered ports. */
async function rememberedPorts(): Promise<{ api: number; dashboard: number }> {
  const take = () =>
    new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
  return { api: await take(), dashboard: await take() };
}

/** Signs in with a one-time link as the app's window does, and asks the dashboard who is signed in. */
async function signedInSession(link: string): Promise<number> {
  const page = await fetch(link, { redirect: 'manual' });
  assert.equal(page.status, 200, `sign-in answered ${page.status}`);
  const cookie = (page.headers.getSetCookie()[0] ?? '').split(';')[0]!;
  const token = sessionTokenOf(await page.text());
  const session = await fetch(new URL('/api/session', link), { headers: { cookie, 'x-statusdesk-session': token } });
  return session.status;
}

test('supervises the real service host: starts it, signs in, restarts it after kill -9, and stops it cleanly', async (t) => {
  const dataDir = await cleanup.folder();
  const states: SupervisorState[] = [];
  const events: HostEvent[] = [];
  const children: ChildProcess[] = [];
  const supervisor = createSupervisor({
    spawn() {
      const child = fork(HOST, [], {
        env: { ...process.env, STATUSDESK_CHECKS: 'off', STATUSDESK_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      children.push(child);
      cleanup.children.push(child);
      return forkedHost(child);
    },
    onEvent: (event) => events.push(event),
    onStateChange: (state) => states.push(state),
    backoffMs: 100,
  });
  t.after(() => supervisor.stop());

  // What the app does at start: the key from the keychain, the ports it used before.
  const sealing = loadSealingKey(dataDir, keychain());
  assert.equal(sealing.protection, 'keychain');
  const ports = await choosePorts(await rememberedPorts(), isPortFree);
  const ready = await supervisor.start({ type: 'start', dataDir, ports, sealingKey: sealing.key?.toString('base64') });
  assert.deepEqual(ready.ports, ports);
  assert.equal(ready.dashboardUrl, `http://localhost:${ports.dashboard}`);
  // The service sealed with the app's key: no key file of its own in the folder.
  assert.equal(existsSync(join(dataDir, KEY_FILE)), false);
  assert.ok(existsSync(join(dataDir, SEALED_KEY_FILE)));

  const link = await supervisor.requestSignIn();
  assert.ok(link.startsWith(`${ready.dashboardUrl}/signin?token=`), link);
  assert.equal(await signedInSession(link), 200);
  await until(() => events.some((event) => event.type === 'health'), 'the first health report', 30_000);

  const first = children[0]!;
  first.kill('SIGKILL');
  await until(() => states.filter((state) => state === 'running').length === 2, 'a restart', 30_000);
  assert.deepEqual(states, ['starting', 'running', 'restarting', 'running']);
  assert.equal(first.signalCode, 'SIGKILL');
  assert.equal(children.length, 2);
  // Same address as before, answering again, with a new link that signs in.
  const again = await supervisor.requestSignIn();
  assert.ok(again.startsWith(`${ready.dashboardUrl}/signin?token=`), again);
  assert.equal(await signedInSession(again), 200);

  await supervisor.stop();
  assert.equal(children[1]!.exitCode, 0, 'the host closed the service and exited on its own');
  assert.equal(states.at(-1), 'stopped');
  assert.equal(await isPortFree(ports.dashboard), true);
  assert.equal(await isPortFree(ports.api), true);
});

/**
 * When the service loads the mail code before the first message: only when its data says mail
 * will be sent (an active email subscriber with a relay, or an email channel). Real SQLite, a real
 * SMTP receiver on loopback for the confirmation mail.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { openTestDatabase } from './support/database.ts';
import type { Actor } from '../server/domain/actor.ts';
import { ensureOwner } from '../server/domain/users/users.ts';
import { createServices, type ServiceOptions } from '../server/services.ts';
import { tempDir } from './support/harness.ts';
import { startSmtpReceiver } from './support/receivers.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setUp(options: ServiceOptions = {}) {
  const dir = await tempDir();
  cleanups.push(dir.remove);
  const db = await openTestDatabase(dir.path);
  cleanups.push(() => db.destroy());
  const services = createServices(db, options);
  cleanups.push(async () => services.close());
  const owner: Actor = { type: 'user', userId: await ensureOwner(db), surface: 'cli' };
  const ws = Number((await services.workspaces.create(owner, { name: 'Mail', slug: 'mail', plan: 'scale' })).id);
  return { services, owner, ws };
}

test('an active email subscriber with a mail relay means page events will be mailed; a pending one does not', async () => {
  const smtp = await startSmtpReceiver();
  cleanups.push(() => smtp.close());
  const { services, owner, ws } = await setUp({ smtpUrl: smtp.url });
  assert.equal(await services.subscribers.mailsPageEvents(), false, 'a new folder mails nothing');
  const page = await services.pages.create(owner, ws, { slug: 'mailed', title: 'Mailed' });
  await services.subscribers.add(owner, ws, page.id, { email: 'reader@acme.test' });
  assert.equal(await services.subscribers.mailsPageEvents(), false, 'pending until confirmed');

  const [mail] = await smtp.waitFor(1);
  const confirm = new URL(/https?:\/\/\S+\/confirm\?\S+/.exec(mail!.text)![0]);
  await services.subscribers.confirm(confirm.searchParams.get('s')!, confirm.searchParams.get('token')!);
  assert.equal(await services.subscribers.mailsPageEvents(), true);
  await services.warmMail();
});

test('without a relay no page event is mailed, and an email channel means alerts will be', async () => {
  const { services, owner, ws } = await setUp();
  assert.equal(await services.subscribers.mailsPageEvents(), false);
  assert.equal(await services.channels.mailsAlerts(), false);
  await services.channels.create(owner, ws, { name: 'Ops mail', kind: 'email', config: { to: ['ops@acme.test'] } });
  assert.equal(await services.channels.mailsAlerts(), true);
});

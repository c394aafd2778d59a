/**
 * The public status page as a visitor's browser gets it over real HTTP from a running service
 * (real SQLite, real loopback TCP targets, a real SMTP receiver): components in the page's order
 * with an ungrouped one outside every group, times as <time datetime> in UTC, day bars that are
 * focusable and say their day in words, its one script served under a policy that allows it, and
 * the subscription form: shown only when the plan allows it and mail is set up, double opt-in, and
 * refused from another origin.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Actor } from '../server/domain/actor.ts';
import type { Services } from '../server/services.ts';
import { closedPort } from './support/grpc-peers.ts';
import { startTestService, type TestService } from './support/harness.ts';
import { request } from './support/raw-http.ts';
import { linkIn, mailTo, startSmtpReceiver, type SmtpReceiver } from './support/receivers.ts';

const system: Actor = { type: 'system', surface: 'cli' };
const owner: Actor = { type: 'user', userId: 1, surface: 'cli' };

let svc: TestService;
let services: Services;
let smtp: SmtpReceiver;
let ws: number;

before(async () => {
  smtp = await startSmtpReceiver();
  svc = await startTestService({ STATUSDESK_SMTP_URL: smtp.url });
  services = svc.services;
  ws = Number((await services.workspaces.getBySlug(system, 'personal')).id);
});

after(async () => {
  await svc?.stop();
  await smtp?.close();
});

const port = (service: TestService) => Number(new URL(service.apiUrl).port);

/** The page as a browser asks for it, from the service's own origin. */
async function pageOf(service: TestService, slug: string) {
  const answer = await request(port(service), `/status/${slug}`, { host: new URL(service.apiUrl).host, accept: 'text/html' });
  assert.equal(answer.status, 200, answer.body);
  return answer;
}

/** The text of every element of the page's <main>, tags dropped. */
const mainOf = (html: string) => /<main id="main"[^>]*>([\s\S]*)<\/main>/.exec(html)![1]!;

/** The spans of the group sections (each from `<section class="grp"` to its `</section>`). */
function groupSections(html: string): { name: string; from: number; to: number }[] {
  const found: { name: string; from: number; to: number }[] = [];
  for (const match of html.matchAll(/<section class="grp"[^>]*><h3 class="gh"[^>]*>([^<]*)<\/h3>/g)) {
    // Group sections hold lists of components, never other sections: the next </section> closes it.
    const to = html.indexOf('</section>', match.index);
    found.push({ name: match[1]!, from: match.index, to });
  }
  return found;
}

describe('components', () => {
  test('keep their order; an ungrouped component between two groups stands outside both group sections', async () => {
    const page = await services.pages.create(system, ws, { slug: 'between-groups', title: 'Between groups' });
    await services.pages.addComponent(system, ws, page.id, { name: 'Alpha API', group: 'Alpha' });
    await services.pages.addComponent(system, ws, page.id, { name: 'Lone Website' });
    await services.pages.addComponent(system, ws, page.id, { name: 'Beta API', group: 'Beta' });
    const html = mainOf((await pageOf(svc, 'between-groups')).body);

    const at = (name: string) => html.indexOf(`>${name}<`);
    assert.ok(at('Alpha API') > 0 && at('Alpha API') < at('Lone Website') && at('Lone Website') < at('Beta API'), 'the components are out of order');
    const groups = groupSections(html);
    assert.deepEqual(
      groups.map((g) => g.name),
      ['Alpha', 'Beta'],
    );
    const lone = at('Lone Website');
    for (const group of groups) assert.ok(lone < group.from || lone > group.to, `the ungrouped component is inside the section of ${group.name}`);
    assert.ok(at('Alpha API') > groups[0]!.from && at('Alpha API') < groups[0]!.to, 'Alpha API is not in its group');
    assert.ok(at('Beta API') > groups[1]!.from && at('Beta API') < groups[1]!.to, 'Beta API is not in its group');
    // Headings say the same: the lone component is a level-3 heading, as the groups are; members are level 4.
    assert.match(html, /<h3>Lone Website<\/h3>/);
    assert.match(html, /<h4>Alpha API<\/h4>/);

    // The dashboard's preview reads the same order from the page's summary.
    const summary = (await (await svc.api('/status/between-groups/summary.json')).json()) as { components: { name: string; group: string | null }[] };
    assert.deepEqual(
      summary.components.map((c) => [c.name, c.group]),
      [
        ['Alpha API', 'Alpha'],
        ['Lone Website', null],
        ['Beta API', 'Beta'],
      ],
    );
  });
});

describe('times and days', () => {
  test('times are <time datetime> in UTC; each day bar is focusable and says its date, uptime and incidents', async () => {
    const page = await services.pages.create(system, ws, { slug: 'days-in-words', title: 'Days in words' });
    const monitor = await services.monitors.create(system, ws, 'tcp', {
      name: 'closed port',
      uri: `127.0.0.1:${await closedPort()}`,
      periodicity: '30s',
      regions: ['iad'],
      timeout: 1_000,
      retry: 0,
    });
    const component = await services.pages.addComponent(system, ws, page.id, { name: 'Checkout', monitorId: monitor.id });
    assert.equal((await services.monitors.trigger(system, ws, monitor.id))[0]!.result, 'down');
    await services.reports.create(system, ws, {
      pageId: page.id,
      title: 'Checkout & payments failing',
      message: 'Looking into it.',
      pageComponentIds: [component.id],
      notify: false,
    });
    const html = (await pageOf(svc, 'days-in-words')).body;

    // Every time is a <time> with its instant, written in UTC and labelled so.
    const times = [...html.matchAll(/<time datetime="([^"]+)">([^<]*)<\/time>/g)];
    assert.ok(times.length >= 2, 'the report and the "Updated" line have times');
    for (const [, datetime, text] of times) {
      assert.match(datetime!, /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{3})?)?Z$/);
      assert.equal(text, `${datetime!.slice(0, 10)} ${datetime!.slice(11, 16)} UTC`);
    }
    assert.match(html, /<p class="upd" id="updated">Updated <time datetime="[^"]+Z">[^<]+ UTC<\/time><\/p>/);

    const bar = /<ol class="bar" aria-label="Checkout: uptime per day, oldest first">([\s\S]*?)<\/ol>/.exec(html);
    assert.ok(bar, 'the component has no day bar');
    const days = [...bar[1]!.matchAll(/<li class=(u[0-5]|nd) tabindex=0><span>([^<]*)<\/span>/g)];
    assert.equal(days.length, 90, 'every one of the 90 days is focusable, with its words');
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(days.at(-1)![2], `${today}: 0% uptime, 1 failed check. Incident: Checkout &amp; payments failing`);
    assert.equal(days.at(-2)![2], `${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}: no data`);
  });
});

describe('the script', () => {
  test('is one file on the page\'s own path, allowed by the policy ("self", never inline), and no inline script runs', async () => {
    await services.pages.create(system, ws, { slug: 'scripted', title: 'Scripted' });
    const answer = await pageOf(svc, 'scripted');
    const policy = String(answer.headers['content-security-policy']);
    const directives = new Map(policy.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1)] as const));
    assert.deepEqual(directives.get('script-src'), ["'self'"]);
    assert.deepEqual(directives.get('connect-src'), ["'self'"], 'the refresh fetches the page itself, and nothing else');
    assert.ok(!policy.includes('unsafe-inline') && !policy.includes('unsafe-eval'), policy);

    const scripts = [...answer.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 1);
    assert.equal(scripts[0]![2], '', 'the script is a file, not inline');
    const src = /src="([^"]+)"/.exec(scripts[0]![1]!)![1]!;
    assert.match(src, /^\/status\/scripted\/page\.js\?v=[0-9a-f]{12}$/, 'a path of the visitor\'s origin, which "self" allows');

    const script = await request(port(svc), src, { host: new URL(svc.apiUrl).host });
    assert.equal(script.status, 200);
    assert.match(String(script.headers['content-type']), /^text\/javascript/);
    assert.match(script.body, /setInterval/);
    assert.match(script.body, /visibilitychange/);
  });
});

describe('the subscription form', () => {
  test('shows only where the plan allows subscribers; a POST from the page signs up pending until confirmed', async () => {
    await services.pages.create(system, ws, { slug: 'subscribable', title: 'Subscribable' });
    const html = (await pageOf(svc, 'subscribable')).body;
    assert.match(html, /<form method="post" action="http:\/\/[^"]+\/status\/subscribable\/subscribe">/);
    assert.match(html, /<input id="email" name="email" type="email"/);

    // On a plan without subscribers the page has no form.
    const hobby = Number((await services.workspaces.create(owner, { name: 'Hobby', slug: 'hobby-ws', plan: 'hobby' })).id);
    await services.pages.create(system, hobby, { slug: 'no-subscribers', title: 'No subscribers' });
    assert.doesNotMatch((await pageOf(svc, 'no-subscribers')).body, /<form|name="email"/);

    // The form, sent from the page (its origin): a clear answer, a pending subscriber and a confirmation mail.
    const address = 'visitor@example.test';
    const origin = new URL(svc.apiUrl).origin;
    const body = new URLSearchParams({ email: address }).toString();
    const sent = await request(
      port(svc),
      '/status/subscribable/subscribe',
      { host: new URL(svc.apiUrl).host, origin, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) },
      'POST',
      body,
    );
    assert.equal(sent.status, 200, sent.body);
    assert.match(sent.body, /<h1>Check your inbox<\/h1>/);
    assert.match(sent.body, /Nothing is sent to it until the link is followed/);
    const subscribers = async () => (await services.subscribers.list(system, ws, 'subscribable')).filter((s) => s.address === address).map((s) => s.status);
    assert.deepEqual(await subscribers(), ['pending']);

    // Double opt-in: opening the link only asks; its button confirms.
    const link = new URL(linkIn(await mailTo(smtp, address, /Confirm your subscription/), 'confirm'));
    const asked = await request(port(svc), `${link.pathname}${link.search}`, { host: new URL(svc.apiUrl).host });
    assert.equal(asked.status, 200);
    assert.deepEqual(await subscribers(), ['pending'], 'opening the link confirmed');
    const confirmed = await request(port(svc), `${link.pathname}${link.search}`, { host: new URL(svc.apiUrl).host, origin }, 'POST');
    assert.equal(confirmed.status, 200, confirmed.body);
    assert.deepEqual(await subscribers(), ['active']);
  });

  test('a POST from another origin is refused and subscribes no one', async () => {
    await services.pages.create(system, ws, { slug: 'cross-origin', title: 'Cross origin' });
    const address = 'forged@example.test';
    const body = new URLSearchParams({ email: address }).toString();
    const mailsBefore = smtp.mails.length;
    const refused = await request(
      port(svc),
      '/status/cross-origin/subscribe',
      {
        host: new URL(svc.apiUrl).host,
        origin: 'https://attacker.example',
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': String(Buffer.byteLength(body)),
      },
      'POST',
      body,
    );
    assert.equal(refused.status, 403);
    assert.deepEqual(
      (await services.subscribers.list(system, ws, 'cross-origin')).map((s) => s.address),
      [],
    );
    assert.equal(smtp.mails.length, mailsBefore, 'a mail was sent');
  });

  test('is not shown where the service has no mail set up', async () => {
    const noMail = await startTestService();
    try {
      const workspace = Number((await noMail.services.workspaces.getBySlug(system, 'personal')).id);
      await noMail.services.pages.create(system, workspace, { slug: 'no-mail', title: 'No mail' });
      const html = (await pageOf(noMail, 'no-mail')).body;
      assert.doesNotMatch(html, /<form|name="email"/);
      assert.match(html, /<h1>No mail<\/h1>/);
    } finally {
      await noMail.stop();
    }
  });
});

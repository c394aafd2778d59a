import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  type ComponentState,
  type PublicComponent,
  type PublicMaintenance,
  type PublicPage,
  type PublicReport,
  summaryJson,
  type UptimeDay,
} from '../server/domain/pages/public-view.ts';
import { exportStaticPage } from '../server/public/static-export.ts';
import { renderAtomFeed } from '../server/public/atom-feed.ts';
import { STATUS_PAGE_CSP } from '../server/public/html-document.ts';
import { renderNoticePage } from '../server/public/notice-page.ts';
import { PAGE_SCRIPT } from '../server/public/page-script.ts';
import { renderStatusPage } from '../server/public/status-page.ts';

/**
 * The public renderers (status page HTML, Atom feed, JSON summary, notice pages, static export),
 * as pure functions of views built here by hand.
 */

const URL_BASE = 'http://localhost:3000/status/acme';
const GENERATED = '2026-11-21T12:00:00.000Z';

/** 90 days ending 2026-11-20; every seventh day has one failed check out of 1440, the first has none. */
function days(): UptimeDay[] {
  const end = Date.parse('2026-11-20T00:00:00Z');
  return Array.from({ length: 90 }, (_, i) => {
    const date = new Date(end - (89 - i) * 86_400_000).toISOString().slice(0, 10);
    if (i === 0) return { date, up: 0, degraded: 0, down: 0, uptime: null };
    const down = i % 7 === 0 ? 1 : 0;
    return { date, up: 1440 - down, degraded: 0, down, uptime: (1440 - down) / 1440 };
  });
}

function component(i: number, overrides: Partial<PublicComponent> = {}): PublicComponent {
  return {
    id: `c${i}`,
    name: `Component ${i}`,
    description: `Serves part ${i}`,
    group: i % 10 < 5 ? null : `Group ${Math.floor(i / 10)}`,
    state: 'operational',
    days: days(),
    uptime: 0.9993,
    ...overrides,
  };
}

function report(i: number, resolved: boolean, overrides: Partial<PublicReport> = {}): PublicReport {
  const at = (h: number) => new Date(Date.parse('2026-11-20T00:00:00Z') - i * 3_600_000 + h * 60_000).toISOString();
  const updates: PublicReport['updates'] = [
    { status: 'investigating', message: `Errors on part ${i} & more`, at: at(0) },
    { status: 'identified', message: 'A bad deploy.\nRolling back.', at: at(10) },
  ];
  if (resolved) updates.push({ status: 'resolved', message: 'Fixed.', at: at(30) });
  updates.reverse();
  return {
    id: `r${i}`,
    title: `Incident ${i}`,
    status: updates[0]!.status,
    resolved,
    createdAt: at(0),
    resolvedAt: resolved ? at(30) : null,
    components: [`Component ${i % 50}`],
    updates,
    ...overrides,
  };
}

function maintenance(i: number, active: boolean, overrides: Partial<PublicMaintenance> = {}): PublicMaintenance {
  return {
    id: `m${i}`,
    title: `Upgrade ${i}`,
    message: 'Database upgrade.',
    from: '2026-11-22T02:00:00Z',
    to: '2026-11-22T04:00:00Z',
    active,
    components: [],
    ...overrides,
  };
}

/** A page of n components and m reports (the first two unresolved, the rest past). */
function makePage(n: number, m: number, overrides: Partial<PublicPage> = {}): PublicPage {
  const reports = Array.from({ length: m }, (_, i) => report(i, i >= 2));
  return {
    id: '7',
    slug: 'acme',
    title: 'Acme status',
    description: 'Everything Acme runs.',
    url: URL_BASE,
    generatedAt: GENERATED,
    state: 'operational',
    components: Array.from({ length: n }, (_, i) => component(i)),
    activeReports: reports.filter((r) => !r.resolved),
    pastReports: reports.filter((r) => r.resolved),
    activeMaintenances: [],
    upcomingMaintenances: [],
    subscribable: true,
    ...overrides,
  };
}

function count(text: string, needle: string | RegExp): number {
  return text.split(needle).length - 1;
}

/** A minimal well-formedness check: tags nest and close, attributes are quoted, every & starts an entity. */
function assertWellFormedXml(xml: string): void {
  assert.match(xml, /^<\?xml version="1.0" encoding="utf-8"\?>/);
  const body = xml.replace(/^<\?xml[^?]*\?>/, '');
  assert.doesNotMatch(body, /&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);)/i, 'a bare & in the XML');
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|<|>/g;
  let last = 0;
  for (let match = tag.exec(body); match; match = tag.exec(body)) {
    assert.doesNotMatch(body.slice(last, match.index), /[<>]/, `stray markup before ${match[0]}`);
    last = tag.lastIndex;
    if (match[0] === '<' || match[0] === '>') assert.fail(`unescaped ${match[0]} at ${match.index}: ${body.slice(match.index - 40, match.index + 40)}`);
    const [, closing, name, , selfClosing] = match;
    if (selfClosing) continue;
    if (closing) assert.equal(stack.pop(), name, `</${name}> closes the wrong element`);
    else stack.push(name!);
  }
  assert.deepEqual(stack, [], 'unclosed elements');
}

/** The text between the tags of each element named `name`. */
function elements(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`, 'g'))].map((m) => m[1]!);
}

describe('renderStatusPage', () => {
  test('is one accessible HTML document whose one script is a file of its own path', () => {
    const out = renderStatusPage(makePage(12, 6), { mode: 'live' });
    assert.match(out, /^<!doctype html><html lang="en">/);
    assert.equal(count(out, /<h1[ >]/), 1);
    assert.match(out, /<a class="skip" href="#main">/);
    assert.match(out, /<header[ >][\s\S]*<main id="main"[\s\S]*<\/main><footer[ >]/);
    assert.match(out, /Powered by Statusdesk/);
    assert.match(out, /<p class="upd" id="updated">Updated <time datetime="2026-11-21T12:00:00Z">2026-11-21 12:00 UTC<\/time><\/p>/);
    assert.equal(count(out, /<script/i), 1);
    assert.match(out, /<script src="\/status\/acme\/page\.js\?v=[0-9a-f]{12}" defer><\/script>/, 'no inline script');
    assert.doesNotMatch(out, /\son[a-z]+=/i, 'no event handler attributes');
    assert.doesNotMatch(out, /<link rel="stylesheet"|@import|@font-face|url\(/);
    assert.doesNotMatch(out, /style="/, 'no inline style attributes');
    assert.match(out, /<link rel="alternate" type="application\/atom\+xml" title="Acme status" href="http:\/\/localhost:3000\/status\/acme\/feed.atom">/);
    assert.match(out, /prefers-color-scheme:dark/);
  });

  test('labels every component state and the overall state with text and an icon', () => {
    const states: ComponentState[] = ['operational', 'degraded', 'down', 'maintenance', 'unknown'];
    const components = states.map((state, i) => component(i, { state, group: null }));
    const out = renderStatusPage(makePage(0, 0, { components, state: 'down' }), { mode: 'live' });
    for (const label of ['Operational', 'Degraded performance', 'Outage', 'Under maintenance', 'Status unknown']) {
      assert.match(out, new RegExp(`<span class="i" aria-hidden="true">[^<]+</span>${label}</span>`), label);
    }
    assert.match(out, /<h2 id="overall"><span class="i" aria-hidden="true">✕<\/span>Partial outage<\/h2>/);
  });

  test('names the overall state in words', () => {
    const banner = (state: ComponentState, components: PublicComponent[]) =>
      /<h2 id="overall">.*?<\/span>([^<]+)<\/h2>/.exec(renderStatusPage(makePage(0, 0, { state, components }), { mode: 'live' }))?.[1];
    assert.equal(banner('operational', [component(1)]), 'All systems operational');
    assert.equal(banner('degraded', [component(1, { state: 'degraded' })]), 'Degraded performance');
    assert.equal(banner('down', [component(1, { state: 'down' }), component(2)]), 'Partial outage');
    assert.equal(banner('down', [component(1, { state: 'down' }), component(2, { state: 'down' })]), 'Major outage');
    assert.equal(banner('maintenance', [component(1, { state: 'maintenance' })]), 'Under maintenance');
  });

  test('escapes what users wrote', () => {
    const evil = '<script>alert(1)</script>';
    const page = makePage(2, 3, {
      title: `Acme ${evil}`,
      description: `"quoted" ${evil}`,
      components: [component(1, { name: `db ${evil}`, description: evil, group: `g ${evil}` })],
      activeReports: [
        report(1, false, { title: evil, components: [evil], updates: [{ status: 'investigating', message: `x ${evil} & y`, at: '2026-11-20T10:00:00Z' }] }),
      ],
      activeMaintenances: [maintenance(1, true, { title: evil, message: evil, components: [evil] })],
    });
    const out = renderStatusPage(page, { mode: 'live', notice: { kind: 'error', text: evil } });
    assert.doesNotMatch(out, /<script>/i);
    assert.match(out, /<h1>Acme &lt;script&gt;alert\(1\)&lt;\/script&gt;<\/h1>/);
    assert.match(out, /<meta name="description" content="&quot;quoted&quot; &lt;script&gt;/);
    assert.match(out, /<h4>db &lt;script&gt;alert\(1\)&lt;\/script&gt;<\/h4>/);
    assert.match(out, /<p class="msg">x &lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; y<\/p>/);
    assert.match(out, /role="alert"><span class="i" aria-hidden="true">✕<\/span>&lt;script&gt;/);
    // Control characters are dropped, lone surrogates replaced.
    const odd = renderStatusPage(makePage(0, 0, { title: 'a\u0000b\u0007c\uD800d' }), { mode: 'live' });
    assert.match(odd, /<h1>abc\uFFFDd<\/h1>/);
  });

  test('shows active matters with their timelines, in UTC', () => {
    const page = makePage(3, 4, {
      activeMaintenances: [maintenance(1, true)],
      upcomingMaintenances: [maintenance(2, false, { components: ['Component 1', 'Component 2'] })],
    });
    const out = renderStatusPage(page, { mode: 'live' });
    const order = ['Maintenance in progress', 'Current incidents', 'Components', 'Scheduled maintenance', 'Past incidents', 'Get updates by email'].map((h) =>
      out.indexOf(`>${h}</h2>`),
    );
    assert.ok(
      order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1]!)),
      `sections in order: ${order}`,
    );
    assert.match(out, /<article class="rep" id="report-r0" aria-labelledby="report-r0-t"><h3 id="report-r0-t">Incident 0<\/h3>/);
    assert.match(out, /<article class="rep done" id="report-r2"/);
    assert.match(
      out,
      /<li><p><strong>Identified<\/strong> · <time datetime="2026-11-20T00:10:00Z">2026-11-20 00:10 UTC<\/time><\/p><p class="msg">A bad deploy.\nRolling back.<\/p><\/li>/,
    );
    assert.match(
      out,
      /<p class="meta"><strong>Resolved<\/strong> <time datetime="2026-11-19T22:30:00Z">2026-11-19 22:30 UTC<\/time> · Affects: Component 2<\/p>/,
    );
    assert.match(out, /<p class="meta"><strong>Identified<\/strong> · Started <time datetime="2026-11-20T00:00:00Z">/);
    assert.match(out, /Affects: all components/);
    assert.match(out, /Affects: Component 1, Component 2/);
    assert.equal(count(out, '<ol class="tl">'), 4);
    const quiet = renderStatusPage(makePage(1, 0), { mode: 'live' });
    assert.doesNotMatch(quiet, /Current incidents|Maintenance in progress|Scheduled maintenance/);
    assert.match(quiet, /No incidents in the last 14 days\./);
  });

  test('writes every time in UTC, whatever offset it came with', () => {
    const updates: PublicReport['updates'] = [
      { status: 'monitoring', message: 'a', at: '2026-11-20T10:00:00+01:00' },
      { status: 'identified', message: 'b', at: '2026-11-20T08:30:00.250Z' },
      { status: 'investigating', message: 'c', at: 'yesterday' },
    ];
    const out = renderStatusPage(makePage(0, 0, { activeReports: [report(1, false, { updates })] }), { mode: 'live' });
    assert.match(out, /<time datetime="2026-11-20T09:00:00Z">2026-11-20 09:00 UTC<\/time>/);
    assert.match(out, /<time datetime="2026-11-20T08:30:00.250Z">2026-11-20 08:30 UTC<\/time>/);
    assert.match(out, /<time>yesterday<\/time>/);
  });

  test('groups components under their group heading', () => {
    const out = renderStatusPage(makePage(20, 0), { mode: 'live' });
    assert.equal(count(out, '<h3 class="gh"'), 2);
    assert.match(
      out,
      /<section class="grp" aria-labelledby="group-1"><h3 class="gh" id="group-1">Group 0<\/h3><ul class="cl"><li class="c"><div class="ch"><h4>Component 5<\/h4>/,
    );
    assert.match(out, /<ul class="cl"><li class="c"><div class="ch"><h3>Component 0<\/h3>/);
    assert.equal(count(out, '<li class="c">'), 20);
  });

  test("a component's uptime says since created when its monitor is younger than the days shown, and a phone's 30 days are said as 30", () => {
    const generatedAt = makePage(1, 0).generatedAt;
    const hourOld = new Date(Date.parse(generatedAt) - 3_600_000).toISOString();
    const monthsOld = new Date(Date.parse(generatedAt) - 60 * 86_400_000).toISOString();
    const young = renderStatusPage(makePage(1, 0, { components: [component(0, { createdAt: hourOld })] }), { mode: 'live' });
    assert.match(young, />99.93% uptime since created<\/span><span>Today/, 'one figure, since created, on every width');
    assert.doesNotMatch(young, /uptime over/);
    const older = renderStatusPage(makePage(1, 0, { components: [component(0, { createdAt: monthsOld })] }), { mode: 'live' });
    assert.match(older, /<span class="d90">99.93% uptime since created<\/span><span class="d30">[\d.]+% uptime over 30 days<\/span>/);
  });

  test('draws 90 labelled days of uptime per component', () => {
    const out = renderStatusPage(
      makePage(3, 0, { components: [component(0), component(1, { days: [], uptime: null }), component(2, { days: days().slice(-10), uptime: 1 })] }),
      { mode: 'live' },
    );
    const bars = [...out.matchAll(/<ol class="bar" aria-label="([^"]*)">([\s\S]*?)<\/ol>/g)];
    assert.equal(bars.length, 2, 'a static component has no bar');
    assert.equal(bars[0]![1], 'Component 0: uptime per day, oldest first');
    for (const bar of bars) assert.equal(count(bar[2]!, /<li class=u[0-5] tabindex=0><span>[^<]+<\/span>|<li class=nd tabindex=0><span>[^<]+<\/span>/), 90);
    assert.match(bars[0]![2]!, /^<li class=nd tabindex=0><span>2026-08-23: no data<\/span><li/);
    assert.match(bars[0]![2]!, /<li class=u4 tabindex=0><span>2026-08-30: 99.93% uptime, 1 failed check<\/span><li/);
    assert.match(bars[0]![2]!, /<li class=u5 tabindex=0><span>2026-11-20: 100% uptime<\/span>$/);
    // A young component is padded with days of no data before its first.
    assert.match(bars[1]![2]!, /^<li class=nd tabindex=0><span>2026-08-23: no data<\/span>/);
    assert.equal(count(bars[1]![2]!, 'no data'), 80);
    assert.match(out, /<span class="d90">99.93% uptime over 90 days<\/span><span class="d30">[\d.]+% uptime over 30 days<\/span>/);
    assert.match(out, /<span class="d90">100% uptime over 90 days<\/span><span class="d30">100% uptime over 30 days<\/span>/);
    const colours = renderStatusPage(
      makePage(1, 0, {
        components: [
          component(0, { days: [0.5, 0.92, 0.97, 0.995, 0.9995, 1].map((uptime, i) => ({ date: `2026-11-1${i}`, up: 1, degraded: 1, down: 1, uptime })) }),
        ],
      }),
      { mode: 'live' },
    );
    assert.match(
      colours,
      /<li class=u0 tabindex=0><span>2026-11-10: 50.00% uptime, 1 failed check, 1 degraded check<\/span><li class=u1 .*<li class=u2 .*<li class=u3 .*<li class=u4 .*<li class=u5 /,
    );
  });

  test('offers the email form only live on a subscribable page', () => {
    const form = /<form method="post" action="http:\/\/localhost:3000\/status\/acme\/subscribe">/;
    const live = renderStatusPage(makePage(1, 0), { mode: 'live' });
    assert.match(live, form);
    assert.match(live, /<label for="email">Email address<\/label><div class="row"><input id="email" name="email" type="email"/);
    assert.doesNotMatch(renderStatusPage(makePage(1, 0, { subscribable: false }), { mode: 'live' }), /<form/);
    assert.doesNotMatch(renderStatusPage(makePage(1, 0), { mode: 'static' }), /<form/);
    assert.match(renderStatusPage(makePage(1, 0, { url: `${URL_BASE}/` }), { mode: 'live' }), form);
  });

  test('links the feed and summary relatively in a static copy', () => {
    const out = renderStatusPage(makePage(1, 0), { mode: 'static' });
    assert.match(out, /<link rel="alternate" type="application\/atom\+xml" title="Acme status" href="feed.atom">/);
    assert.match(out, /<a href="feed.atom">Atom feed<\/a> · <a href="summary.json">JSON summary<\/a>/);
    assert.doesNotMatch(out, /localhost/);
  });

  test('shows a notice', () => {
    const out = renderStatusPage(makePage(1, 0), { mode: 'live', notice: { kind: 'info', text: 'Check your inbox.' } });
    assert.match(out, /<p class="note n-info" role="status"><span class="i" aria-hidden="true">i<\/span>Check your inbox.<\/p>/);
  });

  test('stays small at 50 components and 200 reports, with every component and active report', () => {
    // Speed is measured by the benchmarks (npm run bench:pages), not here: a busy machine must not fail a unit test.
    const page = makePage(50, 200);
    const out = renderStatusPage(page, { mode: 'live' });
    assert.ok(Buffer.byteLength(out) < 600_000, `${Buffer.byteLength(out)} bytes`);
    for (const c of page.components) assert.ok(out.includes(`>${c.name}<`), `${c.name} is not on the page`);
    for (const r of page.activeReports) assert.ok(out.includes(r.title), `${r.title} is not on the page`);
    assert.equal(renderStatusPage(page, { mode: 'live' }), out, 'the same view rendered twice differs');
  });

  test('allows its one stylesheet by hash', () => {
    const out = renderStatusPage(makePage(1, 0), { mode: 'live' });
    const css = /<style>([\s\S]*?)<\/style>/.exec(out)![1]!;
    assert.match(STATUS_PAGE_CSP, new RegExp(`style-src 'sha256-${createHash('sha256').update(css).digest('base64').replace(/[+/]/g, '\\$&')}'`));
    assert.match(STATUS_PAGE_CSP, /default-src 'none'/);
    assert.equal(/<style>([\s\S]*?)<\/style>/.exec(renderNoticePage({ title: 'Acme', heading: 'Hi', message: 'x' }))![1], css);
  });
});

describe('renderAtomFeed', () => {
  const page = makePage(3, 4, {
    title: 'Acme & Co <status>',
    activeMaintenances: [maintenance(1, true)],
    upcomingMaintenances: [maintenance(2, false, { from: '2026-12-01T00:00:00Z', to: '2026-12-01T01:00:00Z', title: 'Swap "disks" & <cables>' })],
  });
  const feed = renderAtomFeed(page, `${URL_BASE}/feed.atom`);

  test('is well-formed Atom with escaped text', () => {
    assertWellFormedXml(feed);
    assert.match(feed, /<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/);
    assert.match(feed, /<title>Acme &amp; Co &lt;status&gt;<\/title>/);
    assert.match(feed, /<link rel="self" type="application\/atom\+xml" href="http:\/\/localhost:3000\/status\/acme\/feed.atom"\/>/);
    assert.match(feed, /<link rel="alternate" type="text\/html" href="http:\/\/localhost:3000\/status\/acme"\/>/);
    assert.equal(elements(feed, 'id')[0], 'urn:statusdesk:page:7');
    assert.match(feed, /<title>Maintenance: Swap &quot;disks&quot; &amp; &lt;cables&gt;<\/title>/);
    assert.doesNotMatch(feed, /&(?!(amp|lt|gt|quot|#39);)/);
  });

  test('has one entry per report and maintenance, each with id, title and updated', () => {
    const entries = elements(feed, 'entry');
    assert.equal(entries.length, 6);
    for (const entry of entries) {
      for (const name of ['id', 'title', 'updated', 'content']) assert.equal(elements(entry, name).length, 1, `${name} in ${entry}`);
      assert.match(elements(entry, 'updated')[0]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
    }
    const ids = entries.map((e) => elements(e, 'id')[0]);
    assert.deepEqual(new Set(ids).size, 6);
    assert.ok(ids.includes('urn:statusdesk:page:7:report:r3'));
    assert.ok(ids.includes('urn:statusdesk:page:7:maintenance:m2'));
    // Newest first; the feed's updated is the newest entry's, which for the windows still to come
    // is the time the feed was rendered, never their start.
    const times = entries.map((e) => elements(e, 'updated')[0]!);
    assert.deepEqual(times, [...times].sort().reverse());
    assert.equal(elements(feed, 'updated')[0], '2026-11-21T12:00:00Z');
  });

  test('carries the timeline as escaped HTML, updated at the latest update', () => {
    const entry = elements(feed, 'entry').find((e) => e.includes(':report:r2</id>'))!;
    assert.equal(elements(entry, 'updated')[0], '2026-11-19T22:30:00Z');
    assert.match(entry, /<published>2026-11-19T22:00:00Z<\/published>/);
    assert.match(entry, /<link rel="alternate" type="text\/html" href="http:\/\/localhost:3000\/status\/acme#report-r2"\/>/);
    const content = elements(entry, 'content')[0]!;
    assert.doesNotMatch(content, /</);
    assert.match(content, /&lt;strong&gt;Identified&lt;\/strong&gt; · 2026-11-19 22:10 UTC/);
    assert.match(content, /Errors on part 2 &amp;amp; more/);
    assert.match(content, /A bad deploy.&lt;br&gt;Rolling back./);
  });

  test('without reports it is still complete', () => {
    const empty = renderAtomFeed(makePage(0, 0, { description: '' }), `${URL_BASE}/feed.atom`);
    assertWellFormedXml(empty);
    assert.equal(elements(empty, 'entry').length, 0);
    assert.equal(elements(empty, 'updated')[0], '2026-11-21T12:00:00Z');
    assert.doesNotMatch(empty, /<subtitle>/);
  });
});

describe('summaryJson', () => {
  test('has the public shape, without daily history', () => {
    const page = makePage(2, 3, { state: 'degraded', upcomingMaintenances: [maintenance(2, false)] });
    const summary = JSON.parse(JSON.stringify(summaryJson(page)));
    assert.deepEqual(Object.keys(summary), ['page', 'status', 'components', 'activeReports', 'maintenances']);
    assert.deepEqual(summary.page, { id: '7', slug: 'acme', title: 'Acme status', url: URL_BASE, updatedAt: GENERATED });
    assert.deepEqual(summary.status, { state: 'degraded', description: 'Degraded performance' });
    assert.deepEqual(summary.components[0], { id: 'c0', name: 'Component 0', group: null, state: 'operational', uptime: 0.9993 });
    assert.equal(summary.activeReports.length, 2);
    assert.deepEqual(summary.activeReports[1], {
      id: 'r1',
      title: 'Incident 1',
      status: 'identified',
      components: ['Component 1'],
      updatedAt: '2026-11-19T23:10:00.000Z',
      latestUpdate: { status: 'identified', message: 'A bad deploy.\nRolling back.', at: '2026-11-19T23:10:00.000Z' },
    });
    assert.deepEqual(summary.maintenances, {
      active: [],
      upcoming: [{ id: 'm2', title: 'Upgrade 2', message: 'Database upgrade.', from: '2026-11-22T02:00:00Z', to: '2026-11-22T04:00:00Z', components: [] }],
    });
    assert.doesNotMatch(JSON.stringify(summary), /"days"|"pastReports"|"updates"/);
  });
});

describe('renderNoticePage', () => {
  test('is a small accessible page with an optional POST form', () => {
    const out = renderNoticePage({
      title: 'Acme <status>',
      heading: 'Unsubscribe?',
      message: 'Stop emails to a@example.com?',
      pageUrl: URL_BASE,
      form: { action: `${URL_BASE}/unsubscribe`, button: 'Unsubscribe', hidden: { token: 'a"b<c' } },
    });
    assert.match(out, /^<!doctype html><html lang="en">/);
    assert.match(out, /<title>Unsubscribe\? · Acme &lt;status&gt;<\/title>/);
    assert.equal(count(out, /<h1[ >]/), 1);
    assert.match(out, /<h1>Unsubscribe\?<\/h1>/);
    assert.match(
      out,
      /<form method="post" action="http:\/\/localhost:3000\/status\/acme\/unsubscribe"><input type="hidden" name="token" value="a&quot;b&lt;c"><button type="submit">Unsubscribe<\/button><\/form>/,
    );
    assert.match(out, /<a href="http:\/\/localhost:3000\/status\/acme">Back to the status page<\/a>/);
    assert.doesNotMatch(out, /<script/i);
    const plain = renderNoticePage({ title: 'Acme', heading: 'Link not valid', message: 'The link has expired.' });
    assert.doesNotMatch(plain, /<form|Back to the status page/);
    assert.match(plain, /<p class="msg">The link has expired.<\/p>/);
  });
});

describe('exportStaticPage', () => {
  test('writes index.html, feed.atom, summary.json and the page script', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'statusdesk-test-'));
    try {
      const out = join(dir, 'site', 'acme');
      const page = makePage(3, 3);
      const files = await exportStaticPage(page, out);
      assert.deepEqual(
        files,
        ['index.html', 'feed.atom', 'summary.json', 'page.js'].map((name) => join(out, name)),
      );
      const [index, feed, summary, script] = await Promise.all(files.map((file) => readFile(file, 'utf8')));
      assert.equal(script, PAGE_SCRIPT);
      assert.match(index!, /<script src="page\.js\?v=[0-9a-f]{12}" defer><\/script>/, 'the copy names its script relatively');
      assert.equal(index, renderStatusPage(page, { mode: 'static' }));
      assert.equal(feed, renderAtomFeed(page, `${URL_BASE}/feed.atom`));
      assert.deepEqual(JSON.parse(summary!), summaryJson(page));
      assert.match(summary!, /^\{\n {2}"page": \{/);
      // Again into the same folder: files are replaced, nothing else is left behind.
      await exportStaticPage(page, out);
      assert.deepEqual((await readdir(out)).sort(), ['feed.atom', 'index.html', 'page.js', 'summary.json']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

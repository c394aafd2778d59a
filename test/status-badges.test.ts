/**
 * A monitor's public status badges over real HTTP: off by default (404), on at an unguessable
 * address answering SVG of its state, uptime and latency with strict headers, a hostile monitor
 * name escaped, off again 404 at once, a rotation leaving the old address 404, a paused monitor
 * shown only as paused, a deleted one 404. The real service with its check engine on, checking a
 * real HTTP listener on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { HTTPMethod, Periodicity } from '../proto/gen/monitor/v1/monitor_pb.js';
import { BADGE_COLOURS } from '../server/public/badge-svg.ts';
import { monitorTools } from '../server/mcp/monitor-tools.ts';
import { assertCode, jsonOf, monitorRpc, newWorkspace, runCli, startTestService, type TestService } from './support/harness.ts';
import { eventually } from './support/wait.ts';
import { Code } from '@connectrpc/connect';

const HOSTILE = `<script>alert(1)</script> & "quotes" 'too' ]]>`;

/** WCAG relative luminance contrast of white text on `hex`. */
function contrastWithWhite(hex: string): number {
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(1 + i * 2, 3 + i * 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
  return 1.05 / (l + 0.05);
}

describe('status badges', () => {
  let service: TestService;
  let listener: ReturnType<typeof createServer>;
  let target: string;
  before(async () => {
    listener = createServer((_req, res) => res.end('ok'));
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    target = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/health`;
    service = await startTestService({ STATUSDESK_CHECKS: 'on' });
  });
  after(async () => {
    await service.stop();
    listener.closeAllConnections();
    listener.close();
  });

  async function setup(name: string) {
    const workspace = await newWorkspace(service, 'badges');
    const rpc = monitorRpc(service, (await service.createKey('write', workspace.slug)).secret);
    const monitor = (
      await rpc.createHTTPMonitor({ monitor: { name, url: target, method: HTTPMethod.HTTP_METHOD_GET, periodicity: Periodicity.PERIODICITY_1H, retry: 0 } })
    ).monitor!;
    return { rpc, id: monitor.id };
  }
  const get = (url: string) => fetch(url);
  const pathOf = (url: string) => new URL(url).pathname;

  test('off by default; on: state, uptime and latency as SVG with strict headers; off again and rotated: 404 at once', { timeout: 60_000 }, async () => {
    const { rpc, id } = await setup(HOSTILE);
    const off = (await rpc.getMonitorBadges({ id })).badges!;
    assert.equal(off.enabled, false, 'off by default');
    assert.equal(off.statusUrl, '');
    // Guessing from the numeric id finds nothing.
    assert.equal((await service.api(`/badge/${id}/status.svg`)).status, 404);

    const on = (await rpc.updateMonitorBadges({ id, enabled: true })).badges!;
    assert.equal(on.enabled, true);
    assert.match(on.badgeId, /^bdg_[A-Za-z0-9_-]{22}$/);
    assert.ok(!on.statusUrl.includes(`/${id}/`), 'the address carries the badge id, not the monitor id');
    for (const url of [on.statusUrl, on.uptime24hUrl, on.uptime7dUrl, on.uptime30dUrl, on.latencyUrl])
      assert.match(pathOf(url), new RegExp(`^/badge/${on.badgeId}/[a-z0-9-]+\\.svg$`));

    // The check the save asked for comes in: the badges show it.
    const status = await eventually(
      async () => (await service.api(pathOf(on.statusUrl))).text(),
      (svg) => svg.includes('>up<'),
      'the status badge shows up',
      20_000,
    );
    assert.match(status, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*role="img"[^>]*>[\s\S]*<\/svg>\n$/);
    assert.ok(!status.includes('<script'), 'the name is escaped');
    assert.ok(status.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot; &apos;too&apos; ]]&gt;: status up'), status);
    assert.ok(status.includes(`fill="${BADGE_COLOURS.up}"`));

    const answer = await service.api(pathOf(on.statusUrl));
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
    assert.equal(answer.headers.get('content-security-policy'), "default-src 'none'; style-src 'unsafe-inline'");
    assert.equal(answer.headers.get('cache-control'), 'public, max-age=60');
    assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');

    const uptime = await eventually(
      async () => (await service.api(pathOf(on.uptime24hUrl))).text(),
      (svg) => svg.includes('>100%<'),
      'the uptime badge shows the stored check',
      20_000,
    );
    assert.ok(uptime.includes('>uptime 24h<'));
    assert.ok((await (await service.api(pathOf(on.uptime30dUrl))).text()).includes('>uptime 30d<'));
    assert.match(await (await service.api(pathOf(on.latencyUrl))).text(), />\d+ ms</);
    assert.equal((await service.api(`/badge/${on.badgeId}/secrets.svg`)).status, 404, 'only the named badges exist');

    // Off: 404 at once, and the setting keeps the id for turning on again.
    const offAgain = (await rpc.updateMonitorBadges({ id, enabled: false })).badges!;
    assert.equal(offAgain.enabled, false);
    assert.equal(offAgain.statusUrl, '');
    assert.equal((await get(on.statusUrl)).status, 404);
    assert.equal((await get(on.uptime7dUrl)).status, 404);

    const again = (await rpc.updateMonitorBadges({ id, enabled: true })).badges!;
    assert.equal(again.badgeId, on.badgeId, 'turning on again keeps the address');
    assert.equal((await get(on.statusUrl)).status, 200);

    const rotated = (await rpc.updateMonitorBadges({ id, enabled: true, rotate: true })).badges!;
    assert.notEqual(rotated.badgeId, on.badgeId);
    assert.equal((await get(on.statusUrl)).status, 404, 'the old address names nothing');
    assert.equal((await get(rotated.statusUrl)).status, 200);
  });

  test('a paused monitor shows only "paused"; a deleted one 404; another workspace cannot see or change the setting', { timeout: 30_000 }, async () => {
    const { rpc, id } = await setup('Paused API');
    const on = (await rpc.updateMonitorBadges({ id, enabled: true })).badges!;
    await rpc.updateHTTPMonitor({ id, monitor: { active: false }, updateMask: { paths: ['active'] } });
    for (const url of [on.statusUrl, on.uptime24hUrl, on.latencyUrl]) {
      const svg = await (await get(url)).text();
      assert.ok(svg.includes('>paused<'), svg);
      assert.ok(!/%|ms</.test(svg), 'no uptime or latency of a paused monitor');
    }

    const other = await setup('Elsewhere');
    await assertCode(other.rpc.getMonitorBadges({ id }), Code.NotFound);
    await assertCode(other.rpc.updateMonitorBadges({ id, enabled: false }), Code.NotFound);

    await rpc.deleteMonitor({ id });
    assert.equal((await get(on.statusUrl)).status, 404);
  });

  test('the command turns them on, off and to a new address; get_monitor (MCP) gives the addresses only while on', { timeout: 60_000 }, async () => {
    const workspace = await newWorkspace(service, 'badges-cli');
    const key = (await service.createKey('write', workspace.slug)).secret;
    const rpc = monitorRpc(service, key);
    const { monitor } = await rpc.createHTTPMonitor({
      monitor: { name: 'CLI API', url: target, method: HTTPMethod.HTTP_METHOD_GET, periodicity: Periodicity.PERIODICITY_1H },
    });
    const id = monitor!.id;
    const env = { SERVICE_API_KEY: key, SERVICE_API_URL: service.apiUrl, STATUSDESK_DATA_DIR: undefined };
    const tool = monitorTools.find((t) => t.name === 'get_monitor')!;
    const context = {
      actor: { type: 'system', surface: 'mcp' } as const,
      workspaceId: Number(workspace.id),
      services: service.services,
      content: undefined as never,
    };
    const mcp = async () => (await tool.run(context as never, { monitorId: Number(id) })) as { badges?: Record<string, string> };
    assert.equal((await mcp()).badges, undefined, 'no addresses while off');

    const on = jsonOf(await runCli(['monitors', 'update', id, '--badge', 'on', '--json'], env));
    assert.equal(on.badges.enabled, true);
    assert.equal((await get(on.badges.urls.status)).status, 200);
    assert.deepEqual((await mcp()).badges, on.badges.urls);

    const table = await runCli(['monitors', 'update', id, '--badge', 'rotate'], env);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /Badges: on/);
    assert.equal((await get(on.badges.urls.status)).status, 404, 'rotated away');

    const both = jsonOf(await runCli(['monitors', 'update', id, '--name', 'CLI API v2', '--badge', 'off', '--json'], env));
    assert.equal(both.name, 'CLI API v2');
    assert.deepEqual(both.badges, { enabled: false });
    assert.equal((await mcp()).badges, undefined);

    const wrong = await runCli(['monitors', 'update', id, '--badge', 'maybe'], env);
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /--badge must be on, off or rotate, got "maybe"/);
  });

  test('every badge colour holds white text at WCAG AA contrast', () => {
    for (const [name, hex] of Object.entries(BADGE_COLOURS)) assert.ok(contrastWithWhite(hex) >= 4.5, `${name} ${hex}: ${contrastWithWhite(hex).toFixed(2)}:1`);
  });
});

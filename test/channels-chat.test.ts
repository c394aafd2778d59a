/**
 * The chat channels (Telegram, Microsoft Teams, Google Chat, Mattermost, Rocket.Chat, Matrix,
 * Zulip) against loopback stand-ins of their APIs (test/support/paging-receiver.ts): each request is
 * checked as the product's API documentation describes it (method, path, how the credential is
 * sent, content type, body), with monitor names and messages that try to inject markup; a
 * refusal shows the product's own words, a 5xx and a server that hangs fail within bounds. The
 * channel service (real data folder) names every bad field with its rule, shows a refusal in a
 * test send, and keeps every credential out of its answers and files.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ChannelKind } from '../server/db/schema.ts';
import { DATABASE_FILE } from '../server/db/open.ts';
import { type AlertDeliveryDeps, deliverAlert } from '../server/delivery/alert-delivery.ts';
import { channelKindRules } from '../server/delivery/channels/registry.ts';
import type { Actor } from '../server/domain/actor.ts';
import type { AlertEvent } from '../server/domain/notifications/events.ts';
import type { Services } from '../server/services.ts';
import { type ApiReceiver, type ApiRequest, startApiReceiver } from './support/paging-receiver.ts';
import { onPostgres, withLocalOwner } from './support/database.ts';
import { rejectsWith, tempDir } from './support/harness.ts';

// ---- fixtures ------------------------------------------------------------------------------------

const LINK = 'http://127.0.0.1:3001/monitors/12';

function alert(overrides: Partial<AlertEvent> = {}): AlertEvent {
  return {
    kind: 'down',
    monitor: { id: '12', name: 'api.example.com', type: 'http', target: 'https://api.example.com/health' },
    from: 'up',
    to: 'down',
    message: 'connection refused',
    at: '2026-03-01T14:05:09.000Z',
    workspace: { slug: 'personal', name: 'Personal' },
    regions: ['iad'],
    link: LINK,
    ...overrides,
  };
}

const recovered = () => alert({ kind: 'recovered', from: 'down', to: 'up', message: 'status code 200', downForMs: 12 * 60_000 });

/** A name and a message that try every markup the products read: tags, links, emphasis, mentions, entities. */
const EVIL_NAME = '<b>api</b> [click](https://evil.test) *bold* _it_ @channel @here';
const EVIL_MESSAGE = '<users/all> @**all** @room `code` &amp; <a href="https://evil.test">x</a>';
const evil = () => alert({ monitor: { id: '12', name: EVIL_NAME, type: 'http', target: 'https://x.test/?a=[b](c)' }, message: EVIL_MESSAGE });

const ZWSP = '\u200b';

/** Every punctuation character of Markdown in `text` is escaped with a backslash. */
function allEscaped(text: string, characters = '[]*_<>`'): boolean {
  for (let i = 0; i < text.length; i++) {
    if (!characters.includes(text[i]!)) continue;
    let backslashes = 0;
    for (let j = i - 1; j >= 0 && text[j] === '\\'; j--) backslashes++;
    if (backslashes % 2 === 0) return false;
  }
  return true;
}

const json = (request: ApiRequest) => {
  assert.ok(request.json, `a JSON body: ${request.headers['content-type']} ${request.body}`);
  return request.json;
};
const form = (request: ApiRequest) => {
  assert.ok(request.form, `a form body: ${request.headers['content-type']} ${request.body}`);
  return request.form;
};

// ---- the kinds -----------------------------------------------------------------------------------

interface ChatCase {
  kind: ChannelKind;
  title: string;
  /** A whole configuration pointing at the receiver. */
  config(url: string): Record<string, unknown>;
  /** The credentials of `config` in clear, which no answer or file may hold. */
  secrets: string[];
  /** Asserts the request of `alert()` exactly as the product's API documents it. */
  checkDown(request: ApiRequest, url: string): void;
  /** Asserts the request of `recovered()`. */
  checkRecovered(request: ApiRequest): void;
  /** Asserts that the request of `evil()` carries no markup of the alert's own. */
  checkEscaped(request: ApiRequest): void;
  /** A 4xx in the product's words, and the error that shows them. */
  refusal: { status: number; body: unknown; error: string };
  /** A 5xx and the error it gives. */
  failure: { status: number; body: unknown; error: (url: string) => string };
  /** The method and origin a timeout names. */
  method: 'POST' | 'PUT';
  /** Bad values of each field, with the rule the service names (a missing required field too). */
  invalid: [field: string, value: unknown, rule: RegExp][];
}

const TELEGRAM_TOKEN = '123456789:AAHtelegramSECRETtoken0123456789abc';
const TEAMS_SIG = 'TEAMS-SIG-SECRET-1';
const GCHAT_KEY = 'GCHAT-KEY-SECRET-2';
const GCHAT_TOKEN = 'GCHAT-TOKEN-SECRET-3';
const MATTERMOST_HOOK = 'mattermosthooksecret4';
const ROCKET_TOKEN = 'ROCKET-TOKEN-SECRET-5';
const MATRIX_TOKEN = 'syt_MATRIX_TOKEN_SECRET_6';
const ZULIP_KEY = 'ZULIPkeySECRET7abcdefghijklmnopq';

const cases: ChatCase[] = [
  {
    kind: 'telegram',
    title: 'Telegram',
    config: (url) => ({ botToken: TELEGRAM_TOKEN, chatId: '-1001234567890', messageThreadId: 7, botApiUrl: url }),
    secrets: [TELEGRAM_TOKEN],
    method: 'POST',
    checkDown(request) {
      // https://core.telegram.org/bots/api#making-requests: the token in the path, parameters as JSON.
      assert.equal(request.method, 'POST');
      assert.equal(request.path, `/bot${TELEGRAM_TOKEN}/sendMessage`);
      assert.equal(request.headers['content-type'], 'application/json');
      const body = json(request);
      assert.deepEqual(Object.keys(body).sort(), ['chat_id', 'link_preview_options', 'message_thread_id', 'parse_mode', 'text']);
      assert.equal(body.chat_id, '-1001234567890');
      assert.equal(body.message_thread_id, 7);
      assert.equal(body.parse_mode, 'HTML');
      assert.deepEqual(body.link_preview_options, { is_disabled: true });
      assert.equal(
        body.text,
        [
          '🔴 <b>api.example.com is down</b>',
          '',
          '<b>Monitor:</b> api.example.com (monitor 12)',
          '<b>Target:</b> http https://api.example.com/health',
          '<b>What happened:</b> connection refused',
          '<b>Result:</b> up → down',
          '<b>Regions:</b> iad',
          '<b>When:</b> 2026-03-01 14:05:09 UTC',
          '<b>Workspace:</b> Personal',
          '',
          `Open in Statusdesk: ${LINK}`,
        ].join('\n'),
      );
    },
    checkRecovered(request) {
      const { text } = json(request);
      assert.match(text, /^✅ <b>api\.example\.com is back up after 12 min<\/b>/);
      assert.match(text, /<b>Down for:<\/b> 12 min/);
    },
    checkEscaped(request) {
      const { text } = json(request);
      // The only tags are the message's own.
      assert.deepEqual([...new Set(text.match(/<\/?[a-z][^>]*>/gi))].sort(), ['</b>', '<b>']);
      assert.ok(text.includes('&lt;b&gt;api&lt;/b&gt;'), text);
      assert.ok(text.includes('&lt;a href=&quot;https://evil.test&quot;&gt;x&lt;/a&gt;'), text);
      assert.ok(text.includes('&amp;amp;'), 'an entity in a message stays text');
    },
    refusal: { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' }, error: 'Telegram refused: chat not found' },
    failure: { status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' }, error: () => 'Telegram answered 502: Bad Gateway' },
    invalid: [
      ['botToken', undefined, /^is required: a bot token from @BotFather/],
      ['botToken', 'not-a-token', /must be a bot token from @BotFather/],
      ['chatId', undefined, /^is required: a chat id/],
      ['chatId', 'ops room', /must be a chat id \(a whole number, negative for groups and channels\) or a public channel's @username/],
      ['messageThreadId', 0, /must be 1 or more/],
      ['messageThreadId', 1.5, /must be a whole number/],
      ['botApiUrl', 'ftp://api.example.com', /must use http:\/\/ or https:\/\//],
    ],
  },
  {
    kind: 'teams',
    title: 'Microsoft Teams',
    config: (url) => ({ webhookUrl: `${url}/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=${TEAMS_SIG}` }),
    secrets: [TEAMS_SIG],
    method: 'POST',
    checkDown(request) {
      // A Workflows webhook takes a message with an Adaptive Card attachment.
      assert.equal(request.method, 'POST');
      assert.equal(request.path, '/workflows/abc/triggers/manual/paths/invoke');
      assert.deepEqual(request.query, { 'api-version': '2016-06-01', sig: TEAMS_SIG });
      assert.equal(request.headers['content-type'], 'application/json');
      const body = json(request);
      assert.equal(body.type, 'message');
      assert.equal(body.attachments.length, 1);
      const [attachment] = body.attachments;
      assert.equal(attachment.contentType, 'application/vnd.microsoft.card.adaptive');
      const card = attachment.content;
      assert.equal(card.type, 'AdaptiveCard');
      assert.equal(card.version, '1.4');
      assert.deepEqual(
        card.body.map((element: { type: string }) => element.type),
        ['TextBlock', 'FactSet'],
      );
      assert.equal(card.body[0].text, '🔴 api\\.example\\.com is down');
      assert.equal(card.body[0].color, 'Attention');
      assert.deepEqual(card.body[1].facts, [
        { title: 'Monitor', value: 'api\\.example\\.com \\(monitor 12\\)' },
        { title: 'Target', value: 'http https://api\\.example\\.com/health' },
        { title: 'What happened', value: 'connection refused' },
        { title: 'Result', value: 'up → down' },
        { title: 'Regions', value: 'iad' },
        { title: 'When', value: '2026\\-03\\-01 14:05:09 UTC' },
        { title: 'Workspace', value: 'Personal' },
      ]);
      assert.deepEqual(card.actions, [{ type: 'Action.OpenUrl', title: 'Open in Statusdesk', url: LINK }]);
    },
    checkRecovered(request) {
      const card = json(request).attachments[0].content;
      assert.equal(card.body[0].text, '✅ api\\.example\\.com is back up after 12 min');
      assert.equal(card.body[0].color, 'Good');
      assert.ok(card.body[1].facts.some((f: { title: string; value: string }) => f.title === 'Down for' && f.value === '12 min'));
    },
    checkEscaped(request) {
      const card = json(request).attachments[0].content;
      for (const text of [card.body[0].text, ...card.body[1].facts.map((f: { value: string }) => f.value)]) assert.ok(allEscaped(text), text);
    },
    refusal: {
      status: 400,
      body: {
        error: { code: 'TriggerInputSchemaMismatch', message: "The input body for trigger 'manual' of type 'Request' did not match its schema definition." },
      },
      error: "Microsoft Teams refused: TriggerInputSchemaMismatch: The input body for trigger 'manual' of type 'Request' did not match its schema definition.",
    },
    failure: { status: 503, body: 'Service Unavailable', error: () => 'Microsoft Teams answered 503' },
    invalid: [
      ['webhookUrl', undefined, /^is required: an http:\/\/ or https:\/\/ URL/],
      ['webhookUrl', 'not a url', /must be an absolute http:\/\/ or https:\/\/ URL/],
      ['webhookUrl', 'https://user:pass@example.com/workflows', /must not carry credentials/],
    ],
  },
  {
    kind: 'google_chat',
    title: 'Google Chat',
    config: (url) => ({ webhookUrl: `${url}/v1/spaces/AAAA/messages?key=${GCHAT_KEY}&token=${GCHAT_TOKEN}` }),
    secrets: [GCHAT_KEY, GCHAT_TOKEN],
    method: 'POST',
    checkDown(request) {
      // An incoming webhook: POST the space's messages URL, its key and token in the query.
      assert.equal(request.method, 'POST');
      assert.equal(request.path, '/v1/spaces/AAAA/messages');
      assert.deepEqual(request.query, { key: GCHAT_KEY, token: GCHAT_TOKEN });
      assert.equal(request.headers['content-type'], 'application/json');
      const body = json(request);
      assert.deepEqual(Object.keys(body).sort(), ['cardsV2', 'fallbackText']);
      assert.equal(body.fallbackText, '[Down] api.example.com (monitor 12)');
      const [{ cardId, card }] = body.cardsV2;
      assert.equal(cardId, 'statusdesk-down');
      assert.deepEqual(card.header, { title: '🔴 api.example.com is down', subtitle: 'Statusdesk · Personal' });
      const widgets = card.sections[0].widgets;
      assert.deepEqual(
        widgets
          .filter((w: object) => 'decoratedText' in w)
          .map((w: { decoratedText: { topLabel: string; text: string } }) => [w.decoratedText.topLabel, w.decoratedText.text]),
        [
          ['Monitor', 'api.example.com (monitor 12)'],
          ['Target', 'http https://api.example.com/health'],
          ['What happened', 'connection refused'],
          ['Result', 'up → down'],
          ['Regions', 'iad'],
          ['When', '2026-03-01 14:05:09 UTC'],
          ['Workspace', 'Personal'],
        ],
      );
      assert.deepEqual(widgets.at(-1), { buttonList: { buttons: [{ text: 'Open in Statusdesk', onClick: { openLink: { url: LINK } } }] } });
    },
    checkRecovered(request) {
      const { card } = json(request).cardsV2[0];
      assert.equal(card.header.title, '✅ api.example.com is back up after 12 min');
    },
    checkEscaped(request) {
      const { card } = json(request).cardsV2[0];
      for (const widget of card.sections[0].widgets) {
        const text = widget.decoratedText?.text;
        if (text !== undefined) assert.doesNotMatch(text, /[<>"]/, text);
      }
      const texts = card.sections[0].widgets.map((w: { decoratedText?: { text: string } }) => w.decoratedText?.text ?? '').join('\n');
      assert.ok(texts.includes('&lt;users/all&gt;'), 'a mention of everyone stays text');
    },
    refusal: {
      status: 403,
      body: { error: { code: 403, message: 'The caller does not have permission', status: 'PERMISSION_DENIED' } },
      error: 'Google Chat refused: PERMISSION_DENIED: The caller does not have permission',
    },
    failure: {
      status: 500,
      body: { error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' } },
      error: () => 'Google Chat answered 500: INTERNAL: Internal error encountered.',
    },
    invalid: [
      ['webhookUrl', undefined, /^is required: an http:\/\/ or https:\/\/ URL/],
      ['webhookUrl', 'https://chat.googleapis.com/v1/spaces/AAAA/messages?key=k', /must carry key= and token= in its query/],
      ['webhookUrl', 'chat.googleapis.com', /must be an absolute http:\/\/ or https:\/\/ URL/],
    ],
  },
  {
    kind: 'mattermost',
    title: 'Mattermost',
    config: (url) => ({ webhookUrl: `${url}/hooks/${MATTERMOST_HOOK}`, channel: 'ops-alerts', username: 'Statusdesk' }),
    secrets: [MATTERMOST_HOOK],
    method: 'POST',
    checkDown(request) {
      // An incoming webhook: POST /hooks/<id> with the post as JSON.
      assert.equal(request.method, 'POST');
      assert.equal(request.path, `/hooks/${MATTERMOST_HOOK}`);
      assert.equal(request.headers['content-type'], 'application/json');
      const body = json(request);
      assert.deepEqual(Object.keys(body).sort(), ['attachments', 'channel', 'text', 'username']);
      assert.equal(body.text, '🔴 **api\\.example\\.com is down**');
      assert.equal(body.channel, 'ops-alerts');
      assert.equal(body.username, 'Statusdesk');
      const [attachment] = body.attachments;
      assert.equal(attachment.fallback, 'api.example.com is down');
      assert.equal(attachment.color, '#d93025');
      assert.equal(attachment.title, 'Open in Statusdesk');
      assert.equal(attachment.title_link, LINK);
      assert.deepEqual(attachment.fields, [
        { short: false, title: 'Monitor', value: 'api\\.example\\.com \\(monitor 12\\)' },
        { short: false, title: 'Target', value: 'http https://api\\.example\\.com/health' },
        { short: false, title: 'What happened', value: 'connection refused' },
        { short: true, title: 'Result', value: 'up → down' },
        { short: true, title: 'Regions', value: 'iad' },
        { short: true, title: 'When', value: '2026\\-03\\-01 14:05:09 UTC' },
        { short: true, title: 'Workspace', value: 'Personal' },
      ]);
    },
    checkRecovered(request) {
      const body = json(request);
      assert.equal(body.text, '✅ **api\\.example\\.com is back up after 12 min**');
      assert.equal(body.attachments[0].color, '#1e8e3e');
    },
    checkEscaped(request) {
      const body = json(request);
      const texts = [body.text.replace(/^\S+ \*\*|\*\*$/g, ''), ...body.attachments[0].fields.map((f: { value: string }) => f.value)];
      for (const text of texts) {
        assert.ok(allEscaped(text), text);
        assert.doesNotMatch(text, /@(?!\u200b)/, `an @ that can mention: ${text}`);
      }
      assert.ok(body.text.includes(`@${ZWSP}channel`));
    },
    refusal: {
      status: 400,
      body: { id: 'web.incoming_webhook.invalid.app_error', message: 'Invalid webhook.', detailed_error: '', request_id: 'r1', status_code: 400 },
      error: 'Mattermost refused: Invalid webhook.',
    },
    failure: {
      status: 500,
      body: { id: 'web.incoming_webhook.general.app_error', message: 'Unable to handle the webhook.', status_code: 500 },
      error: () => 'Mattermost answered 500: Unable to handle the webhook.',
    },
    invalid: [
      ['webhookUrl', undefined, /^is required: an http:\/\/ or https:\/\/ URL/],
      ['webhookUrl', 'mattermost.example.com/hooks/x', /must be an absolute http:\/\/ or https:\/\/ URL/],
      ['channel', 'Ops Alerts', /must be a channel as its URL names it \(town-square\), or @username/],
      ['username', '', /must not be empty/],
      ['username', 'Status\ndesk', /must be one line/],
      ['username', 'x'.repeat(65), /must be at most 64 characters/],
    ],
  },
  {
    kind: 'rocketchat',
    title: 'Rocket.Chat',
    config: (url) => ({ webhookUrl: `${url}/hooks/6571/${ROCKET_TOKEN}` }),
    secrets: [ROCKET_TOKEN],
    method: 'POST',
    checkDown(request) {
      // An incoming webhook integration: POST /hooks/<id>/<token> with text and attachments.
      assert.equal(request.method, 'POST');
      assert.equal(request.path, `/hooks/6571/${ROCKET_TOKEN}`);
      assert.equal(request.headers['content-type'], 'application/json');
      const body = json(request);
      assert.deepEqual(Object.keys(body).sort(), ['attachments', 'text']);
      assert.equal(body.text, '🔴 *api\\.example\\.com is down*');
      const [attachment] = body.attachments;
      assert.equal(attachment.title, 'api.example.com is down');
      assert.equal(attachment.title_link, LINK);
      assert.equal(attachment.color, '#d93025');
      assert.deepEqual(
        attachment.fields.map((f: { short: boolean; title: string }) => [f.title, f.short]),
        [
          ['Monitor', false],
          ['Target', false],
          ['What happened', false],
          ['Result', true],
          ['Regions', true],
          ['When', true],
          ['Workspace', true],
        ],
      );
      assert.equal(attachment.fields[2].value, 'connection refused');
    },
    checkRecovered(request) {
      const body = json(request);
      assert.equal(body.text, '✅ *api\\.example\\.com is back up after 12 min*');
      assert.equal(body.attachments[0].color, '#1e8e3e');
    },
    checkEscaped(request) {
      const body = json(request);
      for (const text of [body.text.replace(/^\S+ \*|\*$/g, ''), ...body.attachments[0].fields.map((f: { value: string }) => f.value)]) {
        assert.ok(allEscaped(text), text);
        assert.doesNotMatch(text, /@(?!\u200b)/, `an @ that can mention: ${text}`);
      }
    },
    refusal: {
      status: 400,
      body: { success: false, error: 'Invalid integration id or token provided.' },
      error: 'Rocket.Chat refused: Invalid integration id or token provided.',
    },
    failure: { status: 500, body: 'Internal Server Error', error: () => 'Rocket.Chat answered 500' },
    invalid: [
      ['webhookUrl', undefined, /^is required: an http:\/\/ or https:\/\/ URL/],
      ['webhookUrl', 'ws://chat.example.com/hooks/x/y', /must use http:\/\/ or https:\/\//],
    ],
  },
  {
    kind: 'matrix',
    title: 'Matrix',
    config: (url) => ({ homeserver: url, roomId: '!ops:example.org', accessToken: MATRIX_TOKEN }),
    secrets: [MATRIX_TOKEN],
    method: 'PUT',
    checkDown(request) {
      // Client-server API: PUT /rooms/{roomId}/send/m.room.message/{txnId}, the token as a bearer.
      assert.equal(request.method, 'PUT');
      assert.match(request.path, /^\/_matrix\/client\/v3\/rooms\/%21ops%3Aexample\.org\/send\/m\.room\.message\/statusdesk-[0-9a-f-]{36}$/);
      assert.equal(request.headers.authorization, `Bearer ${MATRIX_TOKEN}`);
      assert.equal(request.headers['content-type'], 'application/json');
      const body = json(request);
      assert.deepEqual(Object.keys(body).sort(), ['body', 'format', 'formatted_body', 'm.mentions', 'msgtype']);
      assert.equal(body.msgtype, 'm.text');
      assert.equal(body.format, 'org.matrix.custom.html');
      assert.deepEqual(body['m.mentions'], {});
      assert.equal(body.body.split('\n')[0], '🔴 api.example.com is down');
      assert.ok(body.body.includes('What happened: connection refused'));
      assert.ok(body.body.includes(`Open in Statusdesk: ${LINK}`));
      assert.ok(body.formatted_body.startsWith('<p><strong>🔴 api.example.com is down</strong></p><ul>'));
      assert.ok(body.formatted_body.includes('<li><strong>Regions:</strong> iad</li>'));
      assert.ok(body.formatted_body.endsWith(`<p><a href="${LINK}">Open in Statusdesk</a></p>`));
    },
    checkRecovered(request) {
      const body = json(request);
      assert.ok(body.formatted_body.startsWith('<p><strong>✅ api.example.com is back up after 12 min</strong></p>'));
      assert.ok(body.body.includes('Down for: 12 min'));
    },
    checkEscaped(request) {
      const body = json(request);
      const tags = new Set(body.formatted_body.match(/<\/?[a-z]+/gi));
      assert.deepEqual([...tags].sort(), ['</a', '</li', '</p', '</strong', '</ul', '<a', '<li', '<p', '<strong', '<ul'].sort());
      assert.equal(body.formatted_body.match(/<a /g)?.length, 1, 'the only link is the dashboard');
      assert.doesNotMatch(body.body, /@(?!\u200b)/, 'no @ in the plain body can mention');
      assert.deepEqual(body['m.mentions'], {});
    },
    refusal: {
      status: 403,
      body: { errcode: 'M_FORBIDDEN', error: 'User @alerts:example.org not in room !ops:example.org' },
      error: 'Matrix refused: User @alerts:example.org not in room !ops:example.org (M_FORBIDDEN)',
    },
    failure: { status: 502, body: '<html>Bad Gateway</html>', error: () => 'Matrix answered 502' },
    invalid: [
      ['homeserver', undefined, /^is required: an http:\/\/ or https:\/\/ URL/],
      ['homeserver', 'matrix.example.org', /must be an absolute http:\/\/ or https:\/\/ URL/],
      ['roomId', '#ops:example.org', /must be a room id like !abc:example\.org .*an alias like #room:example\.org is not one/],
      ['roomId', undefined, /^is required: a room id/],
      ['accessToken', 'has spaces in it', /must be an access token: 1 to 1024 characters without spaces/],
      ['accessToken', undefined, /^is required: an access token/],
    ],
  },
  {
    kind: 'zulip',
    title: 'Zulip',
    config: (url) => ({ serverUrl: url, botEmail: 'alerts-bot@example.zulipchat.com', apiKey: ZULIP_KEY, stream: 'ops', topic: 'alerts' }),
    secrets: [ZULIP_KEY],
    method: 'POST',
    checkDown(request) {
      // POST /api/v1/messages, form-encoded, HTTP basic authentication with the bot's email and key.
      assert.equal(request.method, 'POST');
      assert.equal(request.path, '/api/v1/messages');
      assert.equal(request.headers['content-type'], 'application/x-www-form-urlencoded');
      assert.equal(request.headers.authorization, `Basic ${Buffer.from(`alerts-bot@example.zulipchat.com:${ZULIP_KEY}`).toString('base64')}`);
      const fields = form(request);
      assert.deepEqual(Object.keys(fields).sort(), ['content', 'to', 'topic', 'type']);
      assert.equal(fields.type, 'stream');
      assert.equal(fields.to, 'ops');
      assert.equal(fields.topic, 'alerts');
      assert.equal(
        fields.content,
        [
          '🔴 **api\\.example\\.com is down**',
          '',
          '**Monitor:** api\\.example\\.com \\(monitor 12\\)',
          '**Target:** http https://api\\.example\\.com/health',
          '**What happened:** connection refused',
          '**Result:** up → down',
          '**Regions:** iad',
          '**When:** 2026\\-03\\-01 14:05:09 UTC',
          '**Workspace:** Personal',
          '',
          `[Open in Statusdesk](${LINK})`,
        ].join('\n'),
      );
    },
    checkRecovered(request) {
      assert.match(form(request).content!, /^✅ \*\*api\\\.example\\\.com is back up after 12 min\*\*/);
    },
    checkEscaped(request) {
      const { content } = form(request);
      const lines = content!.split('\n').filter((line) => line.startsWith('**') && !line.startsWith('**Regions'));
      for (const line of lines) {
        const value = line.replace(/^\*\*[A-Za-z ]+:\*\* /, '');
        assert.ok(allEscaped(value), value);
        assert.doesNotMatch(value, /@(?!\u200b)/, `an @ that can mention: ${value}`);
      }
      assert.ok(content!.includes(`@${ZWSP}\\*\\*all\\*\\*`), "Zulip's @**all** cannot form");
    },
    refusal: {
      status: 400,
      body: { result: 'error', msg: "Channel 'ops' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream: 'ops' },
      error: "Zulip refused: Channel 'ops' does not exist",
    },
    failure: {
      status: 503,
      body: { result: 'error', msg: 'Service temporarily unavailable' },
      error: () => 'Zulip answered 503: Service temporarily unavailable',
    },
    invalid: [
      ['serverUrl', undefined, /^is required: an http:\/\/ or https:\/\/ URL/],
      ['botEmail', 'not an email', /must be the email address of the bot/],
      ['apiKey', 'short', /must be the bot's API key: 16 to 128 letters and digits/],
      ['apiKey', undefined, /^is required: the bot's API key/],
      ['stream', '', /must not be empty/],
      ['stream', 'x'.repeat(61), /must be at most 60 characters/],
      ['topic', 'a\ttopic', /must be one line/],
    ],
  },
];

// ---- sending through the delivery layer ------------------------------------------------------------

/** Sends `event` to a channel of `kind`, its config parsed by the kind's rules as the channel service stores it. */
async function send(kind: ChannelKind, config: Record<string, unknown>, event: AlertEvent, timeoutMs = 5_000): Promise<void> {
  const rules = channelKindRules.rulesOf(kind);
  const secret = new Set(Object.keys(rules.credentials.shape));
  const part = (credential: boolean) => Object.fromEntries(Object.entries(config).filter(([name]) => secret.has(name) === credential));
  const deps: AlertDeliveryDeps = {
    mailer: () => assert.fail('no mail'),
    mailFrom: 'alerts@example.test',
    desktop: () => assert.fail('no desktop'),
    timeoutMs,
  };
  await deliverAlert({ kind, settings: rules.settings.parse(part(false)), credentials: rules.credentials.parse(part(true)) }, event, deps);
}

async function rejection(call: Promise<unknown>): Promise<Error> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof Error);
    return error;
  }
  assert.fail('expected the send to fail');
}

let receiver: ApiReceiver;
before(async () => {
  // One stand-in for every product: each test tells it how to answer first. It outlives the file.
  receiver = await startApiReceiver(undefined, 600_000);
});
after(() => receiver.close());

/** How the stand-in answers every following request: a status with the product's body, or never. */
const reply = (status: number, body: unknown) => receiver.answer(() => ({ status, body }));
const hang = () => receiver.answer(() => 'hang');
/** The request of the send that just returned. */
const last = () => receiver.requests.at(-1)!;

for (const chat of cases) {
  describe(`${chat.title} (${chat.kind})`, () => {
    test('sends the request its API documents; a recovery says how long the monitor was down', async () => {
      reply(200, { ok: true });
      await send(chat.kind, chat.config(receiver.url), alert());
      const first = last();
      chat.checkDown(first, receiver.url);
      await send(chat.kind, chat.config(receiver.url), recovered());
      chat.checkRecovered(last());
      if (chat.kind === 'matrix') assert.notEqual(last().path, first.path, 'each message has a transaction id of its own');
    });

    test('monitor names and messages cannot form markup, links or mentions', async () => {
      reply(200, { ok: true });
      await send(chat.kind, chat.config(receiver.url), evil());
      chat.checkEscaped(last());
    });

    test("a refusal shows the product's own words, never a credential", async () => {
      reply(chat.refusal.status, chat.refusal.body);
      const error = await rejection(send(chat.kind, chat.config(receiver.url), alert()));
      assert.equal(error.message, chat.refusal.error);
      for (const secret of chat.secrets) assert.ok(!error.message.includes(secret));
    });

    test('a 5xx fails with its status', async () => {
      reply(chat.failure.status, chat.failure.body);
      const error = await rejection(send(chat.kind, chat.config(receiver.url), alert()));
      assert.equal(error.message, chat.failure.error(receiver.url));
    });

    test('a server that never answers fails at the timeout', async () => {
      hang();
      const started = performance.now();
      const error = await rejection(send(chat.kind, chat.config(receiver.url), alert(), 300));
      const took = performance.now() - started;
      assert.equal(error.message, `${chat.method} ${receiver.url} timed out after 300 ms`);
      assert.ok(took >= 290 && took < 3_000, `took ${took} ms`);
      for (const secret of chat.secrets) assert.ok(!error.message.includes(secret));
    });
  });
}

test("Telegram's and Zulip's messages stay within their limits however long the monitor's message", async () => {
  reply(200, { ok: true });
  const long = alert({
    message: '&<'.repeat(10_000),
    monitor: { id: '12', name: 'n'.repeat(2_000), type: 'http', target: `https://x.test/${'p'.repeat(3_000)}` },
  });
  await send('telegram', cases[0]!.config(receiver.url), long);
  const { text } = json(last());
  // Telegram counts the text after its entities are parsed: at most 4,096 characters.
  const shown = text
    .replace(/<\/?b>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
  assert.ok(shown.length <= 4_096, `${shown.length} characters`);
  assert.doesNotMatch(text, /&[a-z]*…/, 'no entity is cut in half');

  await send('zulip', cases.at(-1)!.config(receiver.url), long);
  const { content } = form(last());
  assert.ok(Buffer.byteLength(content!) <= 10_000, `${Buffer.byteLength(content!)} bytes`);
});

test('Zulip without a topic posts to a topic named after the monitor', async () => {
  reply(200, { result: 'success', msg: '', id: 42 });
  const { topic: _, ...config } = cases.at(-1)!.config(receiver.url);
  await send('zulip', config, alert({ monitor: { id: '12', name: `${'checkout '.repeat(10)}api`, type: 'http', target: 'https://x.test' } }));
  const { topic } = form(last());
  assert.equal(topic, `${`${'checkout '.repeat(10)}api`.slice(0, 59)}…`);
  assert.ok(topic!.length <= 60);
});

test('Telegram leaves message_thread_id out when no topic is set, and posts to the public Bot API by default', () => {
  const settings = channelKindRules.rulesOf('telegram').settings.parse({ chatId: '@statusdesk_alerts' });
  assert.deepEqual(settings, { chatId: '@statusdesk_alerts', botApiUrl: 'https://api.telegram.org' });
});

// ---- through the channel service -------------------------------------------------------------------

describe('the channel service', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let owner: Actor;
  let workspaceId: number;
  const inService = <T>(run: (services: Services) => Promise<T>) => withLocalOwner(dir.path, (services) => run(services));

  before(async () => {
    dir = await tempDir();
    await withLocalOwner(dir.path, async (services, actor) => {
      owner = actor;
      workspaceId = Number((await services.workspaces.getBySlug(actor, 'personal')).id);
    });
  });
  after(() => dir.remove());

  for (const chat of cases) {
    test(`${chat.kind}: every bad field is refused, named with its rule`, async () => {
      for (const [field, value, rule] of chat.invalid) {
        const config = { ...chat.config(receiver.url), [field]: value };
        if (value === undefined) delete config[field];
        const error = await inService((services) =>
          rejectsWith(services.channels.create(owner, workspaceId, { name: `bad ${chat.kind}`, kind: chat.kind, config }), 'VALIDATION', `config.${field}`),
        );
        const violation = error.violations.find((v) => v.field === `config.${field}`);
        assert.match(violation?.rule ?? '', rule, `${chat.kind}.${field} = ${JSON.stringify(value)}: ${error.message}`);
      }
    });

    test(`${chat.kind}: a test send is delivered, and a refusal is shown in the product's words`, async () => {
      reply(200, { ok: true });
      const { id } = await inService((services) =>
        services.channels.create(owner, workspaceId, { name: `${chat.kind} test send`, kind: chat.kind, config: chat.config(receiver.url) }),
      );
      assert.deepEqual(await inService((services) => services.channels.test(owner, workspaceId, id)), { delivered: true, error: null });
      const request = last();
      // What the message says, its form or JSON decoded and Markdown's escapes dropped.
      const said = (request.headers['content-type'] === 'application/json' ? request.body : [...new URLSearchParams(request.body).values()].join('\n')).replace(
        /\\/g,
        '',
      );
      assert.ok(said.includes('Test monitor is down (test)'), `the test alert arrived, saying it is a test: ${said}`);

      reply(chat.refusal.status, chat.refusal.body);
      assert.deepEqual(await inService((services) => services.channels.test(owner, workspaceId, id)), { delivered: false, error: chat.refusal.error });
    });
  }

  test('no answer and no byte of the data folder holds a credential of a chat channel', async () => {
    const secrets = cases.flatMap((chat) => chat.secrets);
    const leaks = (value: unknown, what: string) => {
      const text = JSON.stringify(value);
      for (const secret of secrets) assert.ok(!text.includes(secret), `${what} holds ${secret}: ${text}`);
    };
    await inService(async (services) => {
      for (const chat of cases) {
        const created = await services.channels.create(owner, workspaceId, {
          name: `${chat.kind} secrets`,
          kind: chat.kind,
          config: chat.config(receiver.url),
        });
        leaks(created, `create ${chat.kind}`);
        leaks(await services.channels.get(owner, workspaceId, created.id), `get ${chat.kind}`);
      }
      leaks(await services.channels.list(owner, workspaceId, { perPage: 200 }), 'list');
    });
    if (onPostgres) return;
    const file = join(dir.path, DATABASE_FILE);
    let bytes = readFileSync(file).toString('latin1');
    try {
      bytes += readFileSync(`${file}-wal`).toString('latin1');
    } catch {
      // no WAL right now
    }
    for (const secret of secrets) assert.ok(!bytes.includes(secret), `the database files hold ${secret} in plain text`);
  });
});

// The channel form in Chromium against the real service, walked from the service's declarations
// (contract/channel-kinds.ts): every field of every kind has an input named by its label, described
// by the service's own hint and bounded by the service's limits; every kind made in the form with
// its declared example is stored as typed; and an edit that leaves credentials empty keeps them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator } from 'playwright-core';
import { createClient } from '../client/index.ts';
import { CHANNEL_KINDS } from '../contract/channel-kinds.ts';
import { CHANNEL_LIMITS } from '../contract/limits.ts';
import { type DeclaredFieldHints, choicesOfRange, inputOf, isRadioChoice } from '../renderer/src/declared-input.ts';
import { configCaseOf, itemOf, labelOf } from '../renderer/src/screens/channel-form-model.ts';
import { channelSpecOf } from '../server/delivery/channels/registry.ts';
import type { ChannelKind } from '../server/db/schema.ts';
import { maskCredential } from '../server/domain/notifications/channel-rules.ts';
import { openPage, watchCsp, withBrowser, chooseWorkspace, goToScreen } from './support/browser.ts';
import { newWorkspace, startTestService, type TestService } from './support/harness.ts';

const T = { timeout: 180_000 };
const KINDS = Object.values(CHANNEL_KINDS) as readonly { kind: ChannelKind; label: string; fields: readonly DeclaredFieldHints[] }[];

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

/** A page on the Notifications screen of a fresh workspace, and the workspace's client for what was stored. */
async function openNotifications(browser: Browser, prefix: string) {
  const ws = await newWorkspace(service, prefix);
  const key = (await service.createKey('read', ws.slug)).secret;
  const { page } = await openPage(browser, service);
  await chooseWorkspace(page, { label: ws.slug });
  await goToScreen(page, 'Notifications');
  await page.getByRole('heading', { level: 1, name: 'Notifications' }).waitFor();
  return { page, notifications: createClient({ baseUrl: `${service.apiUrl}/rpc`, apiKey: key, env: {} }).notifications };
}

/** The text of what describes a control (its hint, its message), as a screen reader reads it. */
async function descriptionOf(control: Locator): Promise<string> {
  const ids = (await control.getAttribute('aria-describedby'))?.split(' ') ?? [];
  const texts = await Promise.all(ids.map((id) => control.page().locator(`[id="${id}"]`).textContent()));
  return texts.join(' ');
}

/** Whether the form draws the field as a group: a map's rows, or a few choices as radios. */
const isGroup = (field: DeclaredFieldHints) => inputOf(field) === 'map' || isRadioChoice(field);

/** The one control of the form named `label` (an input, a select, or the group of a map or of radios). */
function controlOf(form: Locator, field: DeclaredFieldHints): Locator {
  return isGroup(field) ? form.getByRole('group', { name: labelOf(field), exact: true }) : form.getByLabel(labelOf(field), { exact: true });
}

/** Types `value` into the field's input, as a person would. */
async function fill(form: Locator, field: DeclaredFieldHints, value: unknown): Promise<void> {
  const control = controlOf(form, field);
  const input = inputOf(field);
  if (input === 'list') {
    for (const item of value as string[]) {
      await control.fill(item);
      await control.press('Enter');
    }
  } else if (input === 'map') {
    const item = itemOf(field);
    for (const [i, [name, text]] of Object.entries(value as Record<string, string>).entries()) {
      await control.getByRole('button', { name: `Add ${item.toLowerCase()}` }).click();
      await control.getByRole('textbox', { name: `${item} ${i + 1} name` }).fill(name);
      await control.getByRole('textbox', { name: `${item} ${i + 1} value` }).fill(text);
    }
  } else if (isRadioChoice(field)) {
    await control.getByRole('radio', { name: String(value), exact: true }).check();
  } else if (input === 'choice' || (input === 'number' && choicesOfRange(field))) {
    await control.selectOption(String(value));
  } else {
    await control.fill(String(value));
  }
}

describe('the channel form, from the declared channel kinds', () => {
  test('every field of every kind has an input named by its label, with the service hint and limits', T, () =>
    withBrowser(async (browser) => {
      const { page } = await openNotifications(browser, 'ui-chf');
      const violations = watchCsp(page);
      const form = page.getByRole('region', { name: 'Create your first channel' });
      assert.equal(await form.getByLabel('Name', { exact: true }).getAttribute('maxlength'), String(CHANNEL_LIMITS.nameLength));

      const missing: string[] = [];
      for (const kind of KINDS) {
        await form.getByRole('radio', { name: kind.label, exact: true }).check();
        if (kind.fields.length === 0) await form.getByText(/^Nothing to set/).waitFor();
        for (const field of kind.fields) {
          const where = `${kind.kind}.${field.name} (${labelOf(field)})`;
          const control = controlOf(form, field);
          if ((await control.count()) !== 1) {
            missing.push(`${where}: ${await control.count()} controls`);
            continue;
          }
          const tag = await control.evaluate((element: { tagName: string }) => element.tagName.toLowerCase());
          const expected = isGroup(field) ? 'fieldset' : inputOf(field) === 'choice' || choicesOfRange(field) ? 'select' : 'input';
          if (tag !== expected) missing.push(`${where}: a ${tag}, not a ${expected}`);
          if (field.hint && !(await descriptionOf(control)).includes(field.hint)) missing.push(`${where}: not described by its hint "${field.hint}"`);
          const maxLength = field.schema.maxLength;
          if (maxLength !== undefined && (await control.getAttribute('maxlength')) !== String(maxLength)) missing.push(`${where}: no maxlength ${maxLength}`);
          if (field.placeholder && inputOf(field) !== 'map' && (await control.getAttribute('placeholder')) !== field.placeholder) {
            missing.push(`${where}: no placeholder "${field.placeholder}"`);
          }
        }
      }
      assert.deepEqual(missing, []);
      assert.deepEqual(violations, []);
    }),
  );

  test('every kind made in the form with its declared example is stored as typed; an edit that leaves credentials empty keeps them', T, () =>
    withBrowser(async (browser) => {
      const { page, notifications } = await openNotifications(browser, 'ui-chs');
      const violations = watchCsp(page);
      const suffix = randomBytes(3).toString('hex');

      for (const kind of KINDS) {
        const newChannel = page.getByRole('button', { name: 'New channel' });
        await page.getByRole('button', { name: 'Create channel' }).or(newChannel).waitFor();
        if (await newChannel.isVisible()) await newChannel.click();
        const form = page.locator('section.channel-form');
        await form.getByLabel('Name', { exact: true }).fill(`${kind.kind}-${suffix}`);
        await form.getByRole('radio', { name: kind.label, exact: true }).check();
        const example = channelSpecOf(kind.kind).example as Record<string, unknown>;
        for (const field of kind.fields) if (example[field.name] !== undefined) await fill(form, field, example[field.name]);
        await form.getByRole('button', { name: 'Create channel' }).click();
        await page.getByRole('row', { name: new RegExp(`${kind.kind}-${suffix}`) }).waitFor();
      }

      const { channels } = await notifications.listNotificationChannels({ perPage: 200 });
      for (const kind of KINDS) {
        const channel = channels.find((c) => c.name === `${kind.kind}-${suffix}`);
        assert.ok(channel, `the ${kind.kind} channel is stored`);
        assert.equal(channel.config.case, configCaseOf(kind.kind), 'the kind named by its case on the wire');
        const stored = channel.config.value as unknown as Record<string, unknown>;
        const example = channelSpecOf(kind.kind).example as Record<string, unknown>;
        for (const field of kind.fields) {
          const typed = example[field.name];
          if (typed === undefined) continue;
          assert.deepEqual(stored[field.name], field.credential ? maskCredential(typed) : typed, `${kind.kind}.${field.name}`);
        }
      }

      // An edit of the name only: the credentials, shown masked and left empty, are kept (a map's hidden values too).
      const webhook = channels.find((c) => c.name === `webhook-${suffix}`)!;
      await page.getByRole('button', { name: `Edit webhook-${suffix}` }).click();
      const form = page.getByRole('region', { name: `Edit webhook-${suffix}` });
      const secret = form.getByLabel('Signing secret', { exact: true });
      assert.equal(await secret.inputValue(), '');
      assert.match(await descriptionOf(secret), /Stored and hidden \(.+\)\. Leave empty to keep it\./);
      await form.getByLabel('Name', { exact: true }).fill(`webhook-${suffix}-renamed`);
      await form.getByRole('button', { name: 'Save channel' }).click();
      await page.getByRole('row', { name: new RegExp(`webhook-${suffix}-renamed`) }).waitFor();
      const { channel } = await notifications.getNotificationChannel({ id: webhook.id });
      assert.deepEqual(channel?.config, webhook.config, 'the credentials as they were');
      assert.deepEqual(violations, []);
    }),
  );
});

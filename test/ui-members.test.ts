// Settings → General → Members and the invitation link's page in Chromium, with two and three
// people on one service, each in a browser context of their own: the owner invites an admin and
// a member, who open their links, give their names and land on the overview; each sees what their
// role allows; the owner removes the member, whose window then says they have no workspace.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axeInBothThemes, openPage, screenshot, screenshotsInBothThemes, watchCsp, withBrowser } from './support/browser.ts';
import { startTestService, type TestService } from './support/harness.ts';

const T = { timeout: 180_000 };
const MEMBERS = '/settings/general/members';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

const pathOf = (page: Page) => new URL(page.url()).pathname;

/** Makes an invitation on the Members screen; the link shown once, as copied to the clipboard. */
async function inviteFrom(page: Page, role: 'Member' | 'Admin' | 'Owner', note: string, expiry = '3 days'): Promise<string> {
  const form = page.getByRole('region', { name: 'Invite someone' });
  await form.getByRole('radio', { name: role, exact: true }).check();
  await form.getByLabel('Who it is for (optional)').fill(note);
  await form.getByLabel('The link works for').selectOption({ label: expiry });
  await form.getByRole('button', { name: 'Create invitation link' }).click();
  const shown = page.getByRole('region', { name: `Invitation link for ${note}` });
  await shown.waitFor();
  const link = await shown.getByLabel('Invitation link').inputValue();
  await shown.getByRole('button', { name: 'Copy' }).click();
  await shown.getByText('Copied to the clipboard.').waitFor();
  const copied = await page.evaluate<string>('navigator.clipboard.readText()');
  assert.equal(copied, link, 'Copy puts the link on the clipboard');
  assert.match((await shown.textContent()) ?? '', /works once, and expires in/);
  await screenshot(page, `members-link-${note}`);
  await shown.getByRole('button', { name: 'Done' }).click();
  await shown.waitFor({ state: 'detached' });
  return link;
}

/** A person without a session opens an invitation link in a browser context of their own and joins as `name`. */
async function joinAs(browser: Browser, link: string, name: string): Promise<Page> {
  const { context, page } = await openPage(browser, service, { signedIn: false });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.dashboardUrl });
  await page.goto(link);
  const heading = page.getByRole('heading', { level: 1, name: /^Join / });
  await heading.waitFor();
  const workspace = (await heading.textContent())!.replace(/^Join /, '');
  await page.getByLabel('Your name').fill(name);
  await page.getByRole('button', { name: `Join ${workspace}` }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  assert.equal(pathOf(page), '/');
  return page;
}

async function membersScreen(page: Page): Promise<void> {
  await page.goto(`${service.dashboardUrl}${MEMBERS}`);
  await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
  await page.getByRole('row', { name: /you/ }).waitFor();
}

describe('members and invitations in the dashboard', () => {
  test('the owner invites an admin and a member; each joins from their link and sees what their role allows; the removed member is told', T, () =>
    withBrowser(async (browser) => {
      const { context, page: owner } = await openPage(browser, service);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.dashboardUrl });
      const violations = watchCsp(owner);
      await owner.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      // Settings → General → Members, by its link.
      await owner.goto(`${service.dashboardUrl}/settings/general/api-keys`);
      await owner.getByRole('navigation', { name: 'Settings' }).getByRole('list', { name: 'General' }).getByRole('link', { name: 'Members' }).click();
      await owner.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
      assert.equal(pathOf(owner), MEMBERS);

      // The only owner's own controls are disabled, saying why.
      const ownRow = owner.getByRole('row', { name: /you/ });
      assert.equal(await ownRow.getByRole('combobox').isDisabled(), true);
      assert.equal(await ownRow.getByRole('button', { name: 'Leave workspace' }).isDisabled(), true);
      await ownRow.getByText('The last owner: make another member an owner first.').waitFor();

      const adminLink = await inviteFrom(owner, 'Admin', 'Ada', '1 day');
      const memberLink = await inviteFrom(owner, 'Member', 'Max');
      assert.match(adminLink, new RegExp(`^${service.dashboardUrl}/invite/inv_`));
      const invitations = owner.getByRole('region', { name: 'Invitations' });
      const ownerMembers = owner.getByRole('region', { name: /^Members of / });
      await invitations.getByRole('row', { name: /Ada/ }).getByText('Pending').waitFor();
      await invitations.getByRole('row', { name: /Max/ }).getByText('Pending').waitFor();

      // The invitation page, before joining: axe-clean, at both widths and in both themes.
      const { page: preview } = await openPage(browser, service, { signedIn: false });
      await preview.goto(memberLink);
      await preview.getByLabel('Your name').waitFor();
      assert.deepEqual(await axeInBothThemes(preview), []);
      await screenshotsInBothThemes(preview, 'invitation');
      await preview.context().close();

      const admin = await joinAs(browser, adminLink, 'Ada Admin');
      const member = await joinAs(browser, memberLink, 'Max Member');

      // The same link again: the page says why it cannot be used.
      const { page: late } = await openPage(browser, service, { signedIn: false });
      await late.goto(memberLink);
      await late.getByRole('heading', { name: 'This invitation cannot be used', level: 1 }).waitFor();
      await late.getByText(/already used/).waitFor();
      await screenshotsInBothThemes(late, 'invitation-used');
      await late.context().close();

      await owner.reload();
      await ownerMembers.getByRole('row', { name: /Max Member/ }).waitFor();
      await invitations.getByRole('row', { name: /Max/ }).getByText('Accepted').waitFor();
      assert.deepEqual(await axeInBothThemes(owner), []);
      await screenshotsInBothThemes(owner, 'members-owner');

      // The member sees the list only, and may leave.
      await membersScreen(member);
      assert.equal(await member.getByRole('heading', { name: 'Invite someone' }).count(), 0);
      assert.equal(await member.getByRole('heading', { name: 'Invitations' }).count(), 0);
      assert.equal(await member.getByRole('combobox', { name: /^Role of/ }).count(), 0);
      assert.equal(await member.getByRole('button', { name: 'Remove' }).count(), 0);
      await member
        .getByRole('row', { name: /Max Member/ })
        .getByRole('button', { name: 'Leave workspace' })
        .waitFor();
      assert.deepEqual(await axeInBothThemes(member), []);
      await screenshotsInBothThemes(member, 'members-member');

      // A member creating a channel is refused by the service, which names the admin role.
      await member.goto(`${service.dashboardUrl}/notifications`);
      const channelForm = member.locator('section.channel-form');
      await channelForm.getByLabel('Name', { exact: true }).fill('Pager');
      await channelForm.getByRole('radio', { name: 'Desktop', exact: true }).check();
      await channelForm.getByRole('button', { name: 'Create channel' }).click();
      await member
        .getByText(/needs the admin role in this workspace \(or owner\); you are a member/)
        .first()
        .waitFor();

      // The admin invites someone else, but cannot offer the owner role.
      await membersScreen(admin);
      const adminForm = admin.getByRole('region', { name: 'Invite someone' });
      assert.equal(await adminForm.getByRole('radio', { name: 'Owner', exact: true }).count(), 0);
      const third = await inviteFrom(admin, 'Member', 'Sam');
      assert.match(third, /\/invite\/inv_/);
      // An owner's role and membership are not an admin's to change.
      const ownerRow = admin.getByRole('row', { name: /Owner/ }).filter({ hasNot: admin.getByText('you', { exact: true }) });
      await ownerRow
        .getByText(/The last owner|Only an owner changes an owner/)
        .first()
        .waitFor();

      // The owner removes the member, after a confirmation that says what goes with them.
      await ownerMembers
        .getByRole('row', { name: /Max Member/ })
        .getByRole('button', { name: 'Remove' })
        .click();
      const dialog = owner.getByRole('dialog', { name: /Remove Max Member/ });
      await dialog.waitFor();
      assert.match((await dialog.textContent()) ?? '', /connected apps they approved and the API keys they made/);
      await screenshot(owner, 'members-remove-dialog');
      await dialog.getByRole('button', { name: 'Remove member' }).click();
      await ownerMembers.getByRole('row', { name: /Max Member/ }).waitFor({ state: 'detached' });

      // The removed member's next action: their session stays, without the workspace, and the window says so.
      await member.getByRole('button', { name: 'Create channel' }).click();
      await member.getByRole('heading', { name: 'No workspace' }).waitFor();
      await member.getByText('You are not a member of any workspace yet.').waitFor();

      // The admin demoted with a confirmation.
      await owner.getByRole('combobox', { name: 'Role of Ada Admin' }).selectOption('member');
      const demote = owner.getByRole('dialog', { name: /Make Ada Admin a member/ });
      await demote.getByRole('button', { name: 'Change role' }).click();
      await demote.waitFor({ state: 'hidden' });
      assert.equal(await owner.getByRole('combobox', { name: 'Role of Ada Admin' }).inputValue(), 'member');

      assert.deepEqual(violations, []);
    }),
  );

  test('a person signed in already joins with their account: "Join as <name>"', T, () =>
    withBrowser(async (browser) => {
      // A person of the personal workspace is invited to a second one.
      const { withLocalOwner } = await import('./support/database.ts');
      const slug = `second-${Date.now().toString(36)}`;
      const second = await withLocalOwner(service.dataDir, async (services, actor) => {
        const ws = await services.workspaces.create(actor, { name: 'Second', slug, plan: 'scale' });
        const personal = await services.workspaces.getBySlug(actor, 'personal');
        return {
          id: ws.id,
          personal: (await services.members.invite(actor, Number(personal.id), { role: 'member' })).token,
          second: (await services.members.invite(actor, Number(ws.id), { role: 'admin' })).token,
        };
      });
      const person = await joinAs(browser, `${service.dashboardUrl}/invite/${second.personal}`, 'Lin');
      await person.goto(`${service.dashboardUrl}/invite/${second.second}`);
      await person.getByRole('heading', { name: 'Join Second', level: 1 }).waitFor();
      assert.equal(await person.getByLabel('Your name').count(), 0);
      await person.getByRole('button', { name: 'Join as Lin' }).click();
      await person.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      // The workspace joined is the one shown.
      assert.equal(await person.getByLabel('Current workspace').inputValue(), second.id);
    }),
  );
});

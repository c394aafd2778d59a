/**
 * The command line loads only the module of the command it runs, found by the command's first
 * word (server/cli/commands.ts). A command whose first word no module claims still runs, after
 * loading every module: only this test notices.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allCommands, commandsOf } from '../server/cli/commands.ts';

test('every command is found by its first word, in the module that defines it', async () => {
  const all = await allCommands();
  assert.ok(Object.keys(all).length > 0);
  for (const [name, command] of Object.entries(all)) {
    const own = await commandsOf(name.split(' '));
    assert.equal(own[name], command, `"${name}": no module of commands.ts is claimed by its first word, so running it loads every module`);
  }
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { closedPort } from './support/grpc-peers.ts';
import { type CliResult, runCli, startTestService, type TestService } from './support/harness.ts';

/**
 * Help, usage errors and the service's address as a person meets them: the real command in a child
 * process, against the real service (in this process) where one is needed.
 */

const T = { timeout: 60_000 };

/** No setting from the surrounding shell leaks in. */
const clean: NodeJS.ProcessEnv = { SERVICE_API_KEY: undefined, SERVICE_API_URL: undefined, STATUSDESK_LOG_LEVEL: undefined };

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(args, { ...clean, ...env });

/** Help: exit 0, on stdout, nothing on stderr. */
function helpOf(result: CliResult): string {
  assert.equal(result.code, 0, `exit code (stderr: ${result.stderr})`);
  assert.equal(result.stderr, '');
  return result.stdout;
}

/** A usage error: exit 2, nothing on stdout, `lines` exactly on stderr. */
function assertUsage(result: CliResult, lines: (string | RegExp)[]): void {
  assert.equal(result.code, 2, `exit code (stderr: ${result.stderr})`);
  assert.equal(result.stdout, '');
  const said = result.stderr.trimEnd().split('\n');
  assert.equal(said.length, lines.length, result.stderr);
  lines.forEach((line, i) => (typeof line === 'string' ? assert.equal(said[i], line) : assert.match(said[i]!, line)));
}

describe('help', () => {
  test('statusdesk --help, -h, help and no command list every command by section, with its summary', T, async () => {
    const top = helpOf(await cli(['--help']));
    assert.match(top, /^Usage: statusdesk <command> \[flags\]\n/);
    assert.match(top, /\nOn the data folder[^\n]*:\n {2}keys create +create an API key/);
    assert.match(top, /\n {2}whoami +show the workspace/);
    assert.match(top, /\n {2}monitors create +/);
    assert.match(top, /Run statusdesk <command> --help/);
    for (const form of [['-h'], ['help'], []]) assert.equal(helpOf(await cli(form)), top, form.join(' '));
  });

  test('statusdesk monitors --help and help monitors list the commands of the group', T, async () => {
    const group = helpOf(await cli(['monitors', '--help']));
    assert.match(group, /^Usage: statusdesk monitors <command> \[flags\]\n/);
    assert.match(group, /\n {2}monitors list +/);
    assert.doesNotMatch(group, /keys create/);
    assert.equal(helpOf(await cli(['help', 'monitors'])), group);
    assert.equal(helpOf(await cli(['keys', '-h'])), helpOf(await cli(['help', 'keys'])));
  });

  test("a command's --help prints its usage, summary and flags", T, async () => {
    const create = helpOf(await cli(['keys', 'create', '--help']));
    assert.match(create, /^Usage: statusdesk keys create --workspace SLUG --scope read\|write --name NAME/);
    assert.match(create, /\n\ncreate an API key and print its secret/);
    assert.match(create, /\nFlags:\n[^]*--scope read\|write +what the key may do/);
    assert.equal(helpOf(await cli(['help', 'keys', 'create'])), create);
    assert.equal(helpOf(await cli(['keys', 'create', '--name', 'x', '-h'])), create, 'anywhere among the flags');
    assert.match(helpOf(await cli(['monitors', 'create', '--help'])), /^Usage: statusdesk monitors create /);
    assert.match(helpOf(await cli(['serve', '--help'])), /^Usage: statusdesk serve /);
    assert.match(helpOf(await cli(['whoami', '--help'])), /--api-url URL +the service address/);
  });
});

describe('usage errors', () => {
  test('an unknown flag: one line naming it and the nearest flag, the usage line, where help is; exit 2', T, async () => {
    assertUsage(await cli(['monitors', 'create', 'tcp', '--freq', '1m']), [
      'statusdesk monitors create: unknown flag --freq (did you mean --frequency?)',
      /^Usage: statusdesk monitors create /,
      'Run statusdesk monitors create --help for more.',
    ]);
    assertUsage(await cli(['keys', 'list', '--workspce', 'w']), [
      'statusdesk keys list: unknown flag --workspce (did you mean --workspace?)',
      'Usage: statusdesk keys list [--workspace SLUG] [--json] [--data-dir D]',
      'Run statusdesk keys list --help for more.',
    ]);
    assertUsage(await cli(['keys', 'list', '--zzzzzz']), ['statusdesk keys list: unknown flag --zzzzzz', /^Usage: /, /^Run /]);
  });

  test("Node's own parse messages are ours: a missing value, a value for a switch, a missing argument", T, async () => {
    assertUsage(await cli(['keys', 'create', '--name']), ['statusdesk keys create: --name needs a value', /^Usage: /, /^Run /]);
    assertUsage(await cli(['keys', 'list', '--json=yes']), ['statusdesk keys list: --json takes no value', /^Usage: /, /^Run /]);
    assertUsage(await cli(['keys', 'revoke']), ['statusdesk keys revoke: takes 1 argument, got 0', 'Usage: statusdesk keys revoke ID [--data-dir D]', /^Run /]);
  });

  test('an unknown command: the nearest command, and where the list is; a group alone names its commands', T, async () => {
    assertUsage(await cli(['monitor', 'list']), [
      'statusdesk: unknown command "monitor list" (did you mean monitors list?)',
      'Run statusdesk --help for the list of commands.',
    ]);
    assertUsage(await cli(['monitors', 'lst']), [
      'statusdesk: unknown command "monitors lst" (did you mean monitors list?)',
      'Run statusdesk monitors --help for its commands.',
    ]);
    assertUsage(await cli(['frobnicate']), ['statusdesk: unknown command "frobnicate"', 'Run statusdesk --help for the list of commands.']);
    assertUsage(await cli(['keys']), ['statusdesk: keys needs one of its commands: create, list, revoke', 'Run statusdesk keys --help for more.']);
  });
});

describe('the service address', () => {
  test('a SERVICE_API_URL or --api-url without a scheme is a usage error naming where it came from', T, async () => {
    assertUsage(await cli(['monitors', 'list'], { SERVICE_API_URL: 'localhost:3100', SERVICE_API_KEY: 'x' }), [
      'statusdesk monitors list: SERVICE_API_URL must be a URL such as http://localhost:3000, got "localhost:3100"',
      /^Usage: /,
      /^Run /,
    ]);
    const flag = await cli(['whoami', '--api-url', 'localhost:3100'], { SERVICE_API_KEY: 'x' });
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /^statusdesk whoami: --api-url must be a URL such as http:\/\/localhost:3000, got "localhost:3100"\n/);
  });

  test('nothing listening: every client command says Statusdesk is not running there, exit 1', T, async () => {
    const address = `http://127.0.0.1:${await closedPort()}`;
    const expected = `statusdesk: Statusdesk is not running at ${address}: start it with statusdesk serve, or set SERVICE_API_URL\n`;
    for (const args of [['monitors', 'list'], ['pages', 'list'], ['channels', 'list'], ['whoami']]) {
      assert.deepEqual(await cli(args, { SERVICE_API_URL: address, SERVICE_API_KEY: 'svc_x' }), { code: 1, stdout: '', stderr: expected }, args.join(' '));
    }
    assert.deepEqual(await cli(['monitors', 'list', '--api-url', `${address}/rpc`], { SERVICE_API_KEY: 'svc_x' }), { code: 1, stdout: '', stderr: expected });
  });

  describe('with a service', () => {
    let svc: TestService;
    let write: string;
    before(async () => {
      svc = await startTestService();
      write = (await svc.createKey('write')).secret;
    });
    after(() => svc.stop());

    test('--url is the old name of --api-url: accepted, with a note on stderr', T, async () => {
      const result = await cli(['monitors', 'list', '--json', '--url', svc.apiUrl], { SERVICE_API_KEY: write });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stderr, 'statusdesk: --url is now --api-url\n');
      assert.ok(Array.isArray(JSON.parse(result.stdout).monitors));
    });

    test('a credential the service refuses: the same line with the next step in every command, exit 1', T, async () => {
      const wrong = `svc_${'x'.repeat(43)}`;
      for (const args of [['monitors', 'list'], ['whoami']]) {
        const result = await cli(args, { SERVICE_API_URL: svc.apiUrl, SERVICE_API_KEY: wrong });
        assert.equal(result.code, 1, result.stderr);
        assert.equal(result.stdout, '');
        assert.match(
          result.stderr,
          new RegExp(
            `^statusdesk: the service at ${svc.apiUrl.replaceAll('.', '\\.')} refused the credential \\([^\\n]+\\): run statusdesk login, or set SERVICE_API_KEY to a key of this service \\(statusdesk keys create\\)\\n$`,
          ),
          args.join(' '),
        );
      }
    });

    test('a value the service refuses names the flag and exits 2; a refusal of another kind exits 1', T, async () => {
      const refused = await cli(['monitors', 'create', 'tcp', '--name', 'n', '--frequency', '1m', '--target', 'grpc://x:1'], {
        SERVICE_API_URL: svc.apiUrl,
        SERVICE_API_KEY: write,
      });
      assert.equal(refused.code, 2, refused.stderr);
      assert.equal(refused.stdout, '');
      assert.match(refused.stderr, /^statusdesk: --target: [^\n]+\n$/);
      assert.doesNotMatch(refused.stderr, /monitor\.uri/);
      const missing = await cli(['monitors', 'get', '999999'], { SERVICE_API_URL: svc.apiUrl, SERVICE_API_KEY: write });
      assert.equal(missing.code, 1, missing.stderr);
      assert.match(missing.stderr, /^statusdesk: \[not_found\] [^\n]+\n$/);
    });
  });
});

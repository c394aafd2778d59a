import { parseArgs } from 'node:util';
import { ConnectError } from '@connectrpc/connect';
import { AppError } from '../errors.ts';
import { VERSION } from '../package-root.ts';
import { type Command, commands } from './commands.ts';
import { UsageError } from './output.ts';

const usage = `Usage: statusdesk <command>

${Object.values(commands)
  .map((c) => `  statusdesk ${c.usage}`)
  .join('\n')}
  statusdesk --version
`;

/** The longest command name is three words (`pages components add`). */
const MOST_WORDS = 3;

/** The command named by the first words of argv, the longest name first. */
function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  for (let words = Math.min(MOST_WORDS, argv.length); words >= 1; words--) {
    const command = commands[argv.slice(0, words).join(' ')];
    if (command) return { command, rest: argv.slice(words) };
  }
  return undefined;
}

/** The words of an unknown command as typed, up to the first flag. */
function typedName(argv: string[]): string {
  const words = argv.slice(0, MOST_WORDS);
  const flag = words.findIndex((w) => w.startsWith('-'));
  return (flag === -1 ? words : words.slice(0, Math.max(flag, 1))).join(' ');
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--version') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help') {
    process.stdout.write(usage);
    return 0;
  }
  const found = findCommand(argv);
  try {
    if (!found) throw new UsageError(`unknown command: ${typedName(argv)}`);
    const { values, positionals } = parseArgs({ args: found.rest, options: found.command.options, allowPositionals: true, strict: true });
    if (positionals.length !== (found.command.positionals ?? 0)) {
      throw new UsageError(`expected: statusdesk ${found.command.usage}`);
    }
    return (await found.command.run(values, positionals)) ?? 0;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const parseError = typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
    if (error instanceof UsageError || parseError) {
      process.stderr.write(`statusdesk: ${(error as Error).message}\n\n${usage}`);
      return 2;
    }
    // A login that could not be refreshed fails inside the client library, which wraps what it throws.
    const failure = error instanceof ConnectError && error.cause instanceof AppError ? error.cause : error;
    const message = failure instanceof AppError ? failure.message : String((failure as Error)?.message ?? failure);
    process.stderr.write(`statusdesk: ${message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

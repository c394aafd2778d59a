import { parseArgs } from 'node:util';
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

function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  const two = commands[`${argv[0]} ${argv[1]}`];
  if (two) return { command: two, rest: argv.slice(2) };
  const one = commands[argv[0] ?? ''];
  return one && { command: one, rest: argv.slice(1) };
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
    if (!found) throw new UsageError(`unknown command: ${argv.slice(0, 2).join(' ')}`);
    const { values, positionals } = parseArgs({ args: found.rest, options: found.command.options, allowPositionals: true, strict: true });
    if (positionals.length !== (found.command.positionals ?? 0)) {
      throw new UsageError(`expected: statusdesk ${found.command.usage}`);
    }
    await found.command.run(values, positionals);
    return 0;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const parseError = typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
    if (error instanceof UsageError || parseError) {
      process.stderr.write(`statusdesk: ${(error as Error).message}\n\n${usage}`);
      return 2;
    }
    const message = error instanceof AppError ? error.message : String((error as Error)?.message ?? error);
    process.stderr.write(`statusdesk: ${message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

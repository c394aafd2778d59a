import { parseArgs } from 'node:util';
import { closest, distance } from 'fastest-levenshtein';
import { AppError } from '../errors.ts';
import { VERSION } from '../package-root.ts';
import { allCommands, type Command, commandsOf } from './commands.ts';
import { commonFields, restBase, serviceUrl, unreachable, type Values } from './flags.ts';
import { credentialRefused, notRunning, UsageError } from './output.ts';

/** The sections of `statusdesk --help`, by a command's first word; a word in none goes in the last. */
const SECTIONS: [heading: string, words: string[]][] = [
  ['The service, and the runner of a private location', ['serve', 'dashboard', 'runner']],
  ['On the data folder, as its owner (no running service needed)', ['keys', 'workspaces', 'oauth']],
  ['Clients of a running service (SERVICE_API_KEY or the login, at --api-url or SERVICE_API_URL)', ['login', 'logout', 'whoami', 'mcp']],
];

/** The usage line without its note in parentheses: the summary says it. */
const usageLine = (command: Command) => `statusdesk ${command.usage.replace(/\s{2,}\(.*\)$/, '')}`;

/** Names padded into a column, each followed by its text. */
function columns(rows: [string, string][], indent = '  '): string {
  const width = Math.max(...rows.map(([name]) => name.length));
  return rows.map(([name, text]) => `${indent}${name.padEnd(width)}  ${text}`.trimEnd()).join('\n');
}

const listing = (group: string[]) => columns(group.map((name) => [name, commands[name]!.summary ?? usageLine(commands[name]!)]));

function topHelp(): string {
  const sectionOf = (name: string) => {
    const at = SECTIONS.findIndex(([, words]) => words.includes(name.split(' ')[0]!));
    return at === -1 ? SECTIONS.length : at;
  };
  const headings = [
    ...SECTIONS.map(([heading]) => heading),
    'Monitors, private locations, status pages, reports, maintenance, channels, and monitors as code (clients too)',
  ];
  const sections = headings.map((heading, i) => `${heading}:\n${listing(names.filter((name) => sectionOf(name) === i))}`);
  return `Usage: statusdesk <command> [flags]\n\n${sections.join('\n\n')}\n\nRun statusdesk <command> --help for a command's flags; statusdesk --version prints the version.\n`;
}

function groupHelp(group: string): string {
  return `Usage: statusdesk ${group} <command> [flags]\n\n${listing(names.filter((name) => name.startsWith(`${group} `)))}\n\nRun statusdesk ${group} <command> --help for a command's flags.\n`;
}

function commandHelp(command: Command): string {
  const flags = Object.entries(command.options)
    .filter(([, flag]) => flag.description)
    .map(([flag, { type, valueName, description, multiple }]): [string, string] => [
      `--${flag}${type === 'string' ? ` ${valueName ?? 'VALUE'}` : ''}`,
      `${description}${multiple ? ' (repeatable)' : ''}`,
    ]);
  const summary = command.summary ? `\n\n${command.summary}` : '';
  const options = flags.length > 0 ? `\n\nFlags:\n${columns(flags)}` : '';
  return `Usage: ${usageLine(command)}${summary}${options}\n`;
}

/** The longest command name is three words (`pages components add`). */
const MOST_WORDS = 3;

/** The command named by the first words of argv, the longest name first. */
function findCommand(argv: string[], within = commands): { name: string; command: Command; rest: string[] } | undefined {
  for (let words = Math.min(MOST_WORDS, argv.length); words >= 1; words--) {
    const name = argv.slice(0, words).join(' ');
    const command = within[name];
    if (command) return { name, command, rest: argv.slice(words) };
  }
  return undefined;
}

/** The longest group named by the first words of argv (`monitors create` of `monitors create foo`). */
function findGroup(argv: string[]): string | undefined {
  for (let words = Math.min(MOST_WORDS, argv.length); words >= 1; words--) {
    const name = argv.slice(0, words).join(' ');
    if (groups.includes(name)) return name;
  }
  return undefined;
}

/** The candidate `typed` is the start of, else the nearest, if near enough to be a slip of the keyboard. */
function nearest(typed: string, candidates: string[]): string | undefined {
  if (candidates.length === 0) return undefined;
  const completed = candidates.filter((c) => c.startsWith(typed));
  if (completed.length === 1) return completed[0];
  const best = closest(typed, candidates);
  return distance(typed, best) <= Math.max(2, Math.floor(typed.length / 3)) ? best : undefined;
}

/** An unknown command as typed (its words up to the first flag), and the command or group nearest to it. */
function unknownCommand(argv: string[]): UsageError {
  const words = argv.slice(0, MOST_WORDS);
  const flag = words.findIndex((w) => w.startsWith('-'));
  const typed = flag === -1 ? words : words.slice(0, Math.max(flag, 1));
  for (let n = typed.length; n >= 1; n--) {
    const name = typed.slice(0, n).join(' ');
    const suggestion = nearest(
      name,
      [...names, ...groups].filter((c) => c.split(' ').length === n && c !== name),
    );
    if (suggestion) return new UsageError(`unknown command "${typed.join(' ')}" (did you mean ${suggestion}?)`);
  }
  return new UsageError(`unknown command "${typed.join(' ')}"`);
}

/**
 * The flags and positionals of a command, refused one mistake at a time in our words (Node's own
 * parseArgs messages explain its API, not the command's). A value of `-` alone is standard input
 * (`apply -f -`), not a flag.
 */
function parseFlags(command: Command, args: string[]): { values: Values; positionals: string[] } {
  const { tokens } = parseArgs({ args, options: command.options, allowPositionals: true, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const flag = command.options[token.name];
    if (!flag) throw unknownFlag(command, token.rawName);
    if (flag.type === 'string' && (token.value === undefined || (!token.inlineValue && token.value.startsWith('-') && token.value !== '-'))) {
      throw new UsageError(
        `${token.rawName} needs a value${token.value === undefined ? '' : ` (for one that starts with a dash, write ${token.rawName}=${token.value})`}`,
      );
    }
    if (flag.type === 'boolean' && token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`);
  }
  const { values, positionals } = parseArgs({ args, options: command.options, allowPositionals: true, strict: true });
  const expected = command.positionals ?? 0;
  if (expected === 'many') {
    if (positionals.length === 0) throw new UsageError('takes one or more arguments, got none');
  } else if (positionals.length !== expected) {
    throw new UsageError(
      expected === 0 ? `unexpected argument "${positionals[0]}"` : `takes ${expected} argument${expected === 1 ? '' : 's'}, got ${positionals.length}`,
    );
  }
  return { values, positionals };
}

function unknownFlag(command: Command, rawName: string): UsageError {
  // Where the command has a URL of its own, --url could mean either: say which flag is which.
  if (rawName === '--url' && command.options['api-url']) {
    const own = Object.keys(command.options).filter((flag) => flag === 'target' || (flag.endsWith('-url') && flag !== 'api-url'));
    return new UsageError(
      `--url is ambiguous here: the service address is --api-url${own.length > 0 ? `, and this command's own is ${own.map((f) => `--${f}`).join(' or ')}` : ''}`,
    );
  }
  const suggestion = rawName.startsWith('--') ? nearest(rawName.slice(2), Object.keys(command.options)) : undefined;
  return new UsageError(`unknown flag ${rawName}${suggestion ? ` (did you mean --${suggestion}?)` : ''}`);
}

/** The flag that gives a field of the service's request: the command's own map, the shared one, or a flag named as the field's last part. */
function flagOf(command: Command, field: string): string | undefined {
  const named = command.fields?.[field] ?? commonFields[field];
  if (named) return named;
  const last = field
    .split('.')
    .at(-1)!
    .replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
    .replaceAll('_', '-');
  return command.options[last] ? `--${last}` : undefined;
}

/** A usage error: one line naming the command, its usage line, and where its help is. */
function usageError(name: string, command: Command, message: string): number {
  process.stderr.write(`statusdesk ${name}: ${message}\nUsage: ${usageLine(command)}\nRun statusdesk ${name} --help for more.\n`);
  return 2;
}

function fail(message: string, code: number): number {
  process.stderr.write(`statusdesk: ${message}\n`);
  return code;
}

const wantsHelp = (args: string[]) => args.some((arg) => arg === '--help' || arg === '-h');

/**
 * The commands this run needs: the module of the command it runs, else (help, a mistake) every
 * one; none to print the version.
 */
async function commandsFor(argv: string[]): Promise<Record<string, Command>> {
  if (argv[0] === '--version') return {};
  if (argv[0] !== 'help' && !wantsHelp(argv)) {
    const own = await commandsOf(argv);
    if (findCommand(argv, own)) return own;
  }
  return allCommands();
}

const argv = process.argv.slice(2);
const commands = await commandsFor(argv);
const names = Object.keys(commands);
/** Every leading run of words of a command name that is not a command itself: `monitors`, `monitors create`. */
const groups = [
  ...new Set(
    names.flatMap((name) =>
      name
        .split(' ')
        .slice(0, -1)
        .map((_, i, words) => words.slice(0, i + 1).join(' ')),
    ),
  ),
].filter((group) => !commands[group]);

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--version') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const helpOf = argv[0] === 'help' ? argv.slice(1) : wantsHelp(argv) ? argv.filter((arg) => !arg.startsWith('-')) : argv.length === 0 ? [] : undefined;
  const found = findCommand(helpOf ?? argv);
  if (helpOf) {
    const group = findGroup(helpOf);
    if (found && found.name.split(' ').length >= (group?.split(' ').length ?? 0)) process.stdout.write(commandHelp(found.command));
    else if (group) process.stdout.write(groupHelp(group));
    else if (helpOf.length === 0) process.stdout.write(topHelp());
    else return fail(`${unknownCommand(helpOf).message}\nRun statusdesk --help for the list of commands.`, 2);
    return 0;
  }
  if (!found) {
    const group = findGroup(argv);
    if (group && group === argv.filter((arg) => !arg.startsWith('-')).join(' ')) {
      const members = names.filter((name) => name.startsWith(`${group} `)).map((name) => name.slice(group.length + 1));
      return fail(`${group} needs one of its commands: ${members.join(', ')}\nRun statusdesk ${group} --help for more.`, 2);
    }
    const next = group ? `Run statusdesk ${group} --help for its commands.` : 'Run statusdesk --help for the list of commands.';
    return fail(`${unknownCommand(argv).message}\n${next}`, 2);
  }
  const { name, command, rest } = found;
  let values: Values = {};
  try {
    const parsed = parseFlags(command, rest);
    values = parsed.values;
    return (await command.run(values, parsed.positionals)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) return usageError(name, command, error.message);
    const { failureOf, refusedCredential, violationsOf } = await import('./failures.ts');
    const violations = violationsOf(error);
    const flags = violations.map((v) => flagOf(command, v.field));
    if (violations.length > 0 && flags.every(Boolean)) return fail(violations.map((v, i) => `${flags[i]}: ${v.rule}`).join('; '), 2);
    const service = command.options['api-url'] ? restBase(serviceUrl(values)) : undefined;
    if (service && unreachable(error)) return fail(notRunning(service), 1);
    const refused = refusedCredential(error);
    if (service && refused !== undefined) return fail(credentialRefused(service, refused), 1);
    const failure = failureOf(error);
    const message = failure instanceof AppError ? failure.message : String((failure as Error)?.message ?? failure);
    return fail(message, 1);
  }
}

process.exitCode = await main(argv);

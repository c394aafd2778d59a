import { fstatSync } from 'node:fs';
import { type FileHandle, open, writeFile } from 'node:fs/promises';
import { confirmed, yes } from '../confirm.ts';
import { address, type Command, json, note, required, str } from '../flags.ts';
import { client } from '../service-client.ts';
import { printJson, UsageError } from '../output.ts';
import type { Problem } from './file-format.ts';
import type { Change, FieldChange, Step } from './plan.ts';

/**
 * `statusdesk apply` and `statusdesk export`: monitors, pages and components as a file, through
 * the client library like the other client commands.
 */

/** The file format (YAML) and the plan, loaded by the two commands only: no other command loads them. */
const fileCode = () => Promise.all([import('./file-format.ts'), import('./plan.ts')]);

const SIGNS = { create: '+', update: '~', delete: '-', unchanged: '=' } as const;

const valueText = (value: unknown) =>
  value === null || value === undefined ? 'none' : typeof value === 'string' && value !== '' ? value : JSON.stringify(value);

/** `+ monitor API (http)`, `~ monitor DB: frequency 5m → 1m`, `- component Old on page acme`. */
function changeLine(change: Change): string {
  const subject =
    change.kind === 'component'
      ? `component ${change.name} on page ${change.page}`
      : change.kind === 'maintenance'
        ? `maintenance window ${change.name} on page ${change.page}`
        : `${change.kind} ${change.name}`;
  const type = change.type && change.action !== 'update' ? ` (${change.type})` : '';
  const fieldText = (f: FieldChange) =>
    f.secret ? `${f.field} (secret values, sent again: the service never shows them)` : `${f.field} ${valueText(f.from)} → ${valueText(f.to)}`;
  const fields = change.fields ? `: ${change.fields.map(fieldText).join(', ')}` : '';
  return `${SIGNS[change.action]} ${subject}${type}${fields}`;
}

function summaryOf(changes: Change[]) {
  const count = (action: Change['action']) => changes.filter((c) => c.action === action).length;
  return { create: count('create'), update: count('update'), delete: count('delete'), unchanged: count('unchanged') };
}

const summaryLine = (s: ReturnType<typeof summaryOf>) => `${s.create} to create, ${s.update} to update, ${s.delete} to delete, ${s.unchanged} unchanged`;

/** A file's problems, or the workspace's conflicts with it: every one, and that nothing changed. */
function reportProblems(file: string, problems: Problem[], asJson: boolean, code: number): number {
  if (asJson) printJson({ problems });
  process.stderr.write(`statusdesk: ${file}: ${problems.length === 1 ? '1 problem' : `${problems.length} problems`}, nothing was changed\n`);
  for (const p of problems) process.stderr.write(`  ${p.path}: ${p.message}\n`);
  return code;
}

/**
 * The most a file to apply may hold, checked before it is read. `export` of 10,000 HTTP monitors
 * with a description, headers, three assertions, tags and OTLP export each writes 8.9 MB (with a
 * status assertion alone, 2.3 MB), which takes about 10 s of processor time and 500 MB to read:
 * YAML's tree of a file is some 60 times its size. Unbounded, a 50 MB file took 2.8 GB.
 */
const MIB = 1024 * 1024;
const MAX_FILE_BYTES = 16 * MIB;
const sizeText = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB (${bytes} bytes)`;

/** A file too big to apply: named, with its size, and the limit. */
const tooBig = (name: string, size: string) =>
  new UsageError(
    `${name} ${size}, over the ${MAX_FILE_BYTES / MIB} MiB a file to apply may hold: apply it in parts (without --prune, each part changes only what it names)`,
  );

/**
 * The file's text, read only up to the limit: the size of a file (or of standard input redirected
 * from one) is known before anything is read; a pipe or a device is read until it passes the limit.
 */
async function readSource(file: string): Promise<string> {
  const name = file === '-' ? 'standard input' : file;
  let handle: FileHandle | undefined;
  try {
    if (file !== '-') handle = await open(file, 'r');
    const stats = handle ? await handle.stat() : fstatSync(0);
    if (stats.isFile() && stats.size > MAX_FILE_BYTES) throw tooBig(name, `is ${sizeText(stats.size)}`);
    const chunks: Buffer[] = [];
    let read = 0;
    for await (const chunk of (handle?.createReadStream({ autoClose: false }) ?? process.stdin) as AsyncIterable<Buffer>) {
      read += chunk.length;
      if (read > MAX_FILE_BYTES) throw tooBig(name, `holds more than ${sizeText(MAX_FILE_BYTES)}`);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${name}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  } finally {
    await handle?.close();
  }
}

type Outcome = 'applied' | 'refused' | 'not applied';

const apply: Command = {
  usage: 'apply -f FILE [--prune [--yes]] [--dry-run] [--api-url URL] [--json]',
  summary: 'make the monitors, pages, components and maintenance windows of the workspace match a file',
  options: {
    file: { type: 'string', short: 'f', valueName: 'FILE', description: 'the file to apply (YAML or JSON); - reads standard input' },
    prune: {
      type: 'boolean',
      description:
        'also delete the monitors, pages and components the file does not have, and the maintenance windows not ended its maintenance section does not have (asks first; --yes when not on a terminal)',
    },
    ...yes,
    'dry-run': { type: 'boolean', description: 'print the plan and change nothing' },
    ...address,
    ...json,
  },
  async run(values) {
    const file = required(values, 'file');
    const asJson = values.json === true;
    const api = client(values);
    const [{ Problems, readDesired }, { makePlan, readWorkspace }] = await fileCode();
    let plan;
    try {
      const desired = readDesired(await readSource(file), process.env);
      plan = makePlan(desired, await readWorkspace(api, desired), values.prune === true);
    } catch (error) {
      if (error instanceof Problems) return reportProblems(file === '-' ? 'standard input' : file, error.problems, asJson, error.exitCode);
      throw error;
    }
    const summary = summaryOf([...plan.steps.map((s) => s.change), ...plan.unchanged]);
    if (!asJson) {
      for (const step of plan.steps) process.stdout.write(`${changeLine(step.change)}\n`);
      process.stdout.write(`${summaryLine(summary)}\n`);
    }
    if (plan.kept > 0) note(`${plan.kept} monitors and pages of the workspace are not in the file and are kept: --prune deletes them`);
    if (plan.keptWindows > 0)
      note(`${plan.keptWindows} maintenance windows of the workspace that have not ended are not in the file and are kept: --prune deletes them`);

    const deletions = plan.steps.filter((s) => s.change.action === 'delete').length;
    if (
      values['dry-run'] !== true &&
      deletions > 0 &&
      !(await confirmed(values, async () => `Apply, deleting ${deletions} ${deletions === 1 ? 'thing' : 'things'} the file does not have?`))
    )
      return 1;

    const outcomes = new Map<Step, Outcome>();
    let refusal: unknown;
    if (values['dry-run'] !== true) {
      for (const step of plan.steps) {
        if (refusal !== undefined) {
          outcomes.set(step, 'not applied');
          continue;
        }
        try {
          await step.run(api, plan.ids);
          outcomes.set(step, 'applied');
        } catch (error) {
          refusal = error;
          outcomes.set(step, 'refused');
        }
      }
    }
    if (asJson) {
      const error = refusal === undefined ? {} : { error: (refusal as Error).message };
      printJson({
        dryRun: values['dry-run'] === true,
        changes: [...plan.steps.map((s) => ({ ...s.change, ...(outcomes.has(s) ? { outcome: outcomes.get(s) } : {}) })), ...plan.unchanged],
        summary,
        ...error,
      });
    }
    if (values['dry-run'] === true) return note('dry run: nothing was changed');
    if (refusal === undefined)
      return note(plan.steps.length === 0 ? 'nothing to change' : `applied ${plan.steps.length} ${plan.steps.length === 1 ? 'change' : 'changes'}`);
    const applied = [...outcomes.values()].filter((o) => o === 'applied').length;
    note(`stopped at a refusal: ${applied} of ${plan.steps.length} changes applied`);
    for (const [step, outcome] of outcomes) note(`  ${outcome.padEnd(11)}  ${changeLine(step.change)}`);
    throw refusal;
  },
};

const exportCommand: Command = {
  usage: 'export [-o FILE] [--api-url URL]',
  summary: 'write the monitors, pages, components and maintenance windows of the workspace as a file for statusdesk apply',
  options: {
    out: { type: 'string', short: 'o', valueName: 'FILE', description: 'where to write the file (default: standard output)' },
    ...address,
  },
  async run(values) {
    const [{ renderFile }, { readWorkspace, workspaceFile }] = await fileCode();
    const { monitors, pages, maintenance } = workspaceFile(await readWorkspace(client(values)));
    const rendered = renderFile(monitors, pages, maintenance);
    const out = str(values, 'out');
    if (out === undefined) return void process.stdout.write(rendered);
    await writeFile(out, rendered);
    note(`wrote ${monitors.length} monitors, ${pages.length} pages and ${maintenance.length} maintenance windows to ${out}`);
  },
};

export const configCommands: Record<string, Command> = { apply, export: exportCommand };

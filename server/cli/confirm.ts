import { createInterface } from 'node:readline/promises';
import type { Options, Values } from './flags.ts';
import { note } from './flags.ts';
import { UsageError } from './output.ts';

/** `--yes` of a command that deletes: it answers the question, and off a terminal it is the only answer. */
export const yes = { yes: { type: 'boolean', description: 'delete without asking (required when not on a terminal)' } } as const satisfies Options;

/**
 * Whether to go on with a deletion: with --yes, yes; on a terminal (stdin and stderr), the answer to
 * `question [y/N]`, y or yes; elsewhere a usage error, since nobody can answer and a script must say so.
 */
export async function confirmed(values: Values, question: () => Promise<string>): Promise<boolean> {
  if (values.yes === true) return true;
  if (!process.stdin.isTTY || !process.stderr.isTTY) throw new UsageError('refusing to delete without --yes when not on a terminal');
  const text = await question();
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    // The end of input before an answer is a no.
    const answer = await prompt.question(`${text} [y/N] `).catch(() => '');
    if (/^y(es)?$/i.test(answer.trim())) return true;
  } finally {
    prompt.close();
  }
  note('Nothing was deleted.');
  return false;
}

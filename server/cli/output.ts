/** Output helpers: stdout carries results, stderr carries everything a person reads about them. */

export class UsageError extends Error {}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A plain aligned table with a header row. */
export function printTable(headers: string[], rows: (string | null | undefined)[][]): void {
  const cells = [headers, ...rows.map((r) => r.map((c) => c ?? '-'))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  for (const row of cells) {
    process.stdout.write(
      `${row
        .map((c, i) => (c ?? '').padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd()}\n`,
    );
  }
}

/** The service refused the credential of a request (401), as a fetch of the command line saw it. */
export class CredentialRefused extends Error {}

/** What every client command says when nothing answers at the service's address. */
export const notRunning = (service: string) => `Statusdesk is not running at ${service}: start it with statusdesk serve, or set SERVICE_API_URL`;

/** What every client command says when the service refuses its credential, with the next step. */
export const credentialRefused = (service: string, said?: string) =>
  `the service at ${service} refused the credential${said ? ` (${said})` : ''}: run statusdesk login, or set SERVICE_API_KEY to a key of this service (statusdesk keys create)`;

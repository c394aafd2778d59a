import { spawn } from 'node:child_process';

/** Opens `url` in the system browser, detached; a machine without one still has the address printed. */
export function openBrowser(url: string): void {
  // cmd reads `&` as a command separator unless escaped.
  const [command, args, verbatim] =
    process.platform === 'darwin'
      ? ['open', [url], false]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replaceAll('&', '^&')], true]
        : ['xdg-open', [url], false];
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore', windowsVerbatimArguments: verbatim });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No opener: the command prints the address too.
  }
}

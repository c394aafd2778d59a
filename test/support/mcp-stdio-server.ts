/**
 * A stdio MCP server for tests (see mcp-servers.ts): its generation and behaviour come as JSON in
 * the environment variable MCP_TEST_SERVER. Run with `process.execPath`.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { BEHAVIOUR_ENV, buildServer, type ServerReport, type StdioServerSpec } from './mcp-servers.ts';

const spec = JSON.parse(process.env[BEHAVIOUR_ENV] ?? '{"generation":"v2"}') as StdioServerSpec;

if (spec.exitAtOnce) {
  process.stderr.write(spec.exitAtOnce.stderr);
  process.exit(spec.exitAtOnce.code);
}

// Started in this process's group and left running, as a careless server's helper would be.
const child = spec.forkChild ? spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }) : undefined;
if (spec.reportInto) {
  const report: ServerReport = { leader: process.pid, child: child?.pid ?? null, cwd: process.cwd(), env: Object.keys(process.env).sort() };
  writeFileSync(spec.reportInto, JSON.stringify(report));
}

process.stderr.write(`test server ${spec.generation} starting\n`);
if (spec.generation === 'v1') {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const server = await buildServer('v1', () => spec);
  await server.connect(new StdioServerTransport());
} else {
  // The 2.x entry point for stdio: it serves both eras, picking one by the opening request.
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  serveStdio(() => buildServer('v2', () => spec) as never);
}

/**
 * Writes the fields of every monitor type and channel kind as the dashboard's forms are told of
 * them into contract/ (plain data, no server code, which the renderer may import):
 * `node scripts/contract-fields.ts`. test/registries.test.ts fails when a file is stale.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { channelKindHints } from '../server/delivery/channels/registry.ts';
import { monitorTypeHints } from '../server/domain/monitors/monitor-types.ts';

const HEADER = (from: string) =>
  `// Generated from ${from} by \`node scripts/contract-fields.ts\`: do not edit.\n` +
  "// Each field's words, its flag, and the JSON Schema of its input (values, limits, default), from\n" +
  '// the schema the service validates with; test/registries.test.ts fails when this file is stale.\n';

export function contractFiles(): Record<string, string> {
  return {
    'contract/monitor-types.ts': `${HEADER('server/domain/monitors/types/')}\nexport const MONITOR_TYPES = ${JSON.stringify(monitorTypeHints(), null, 2)} as const;\n`,
    'contract/channel-kinds.ts': `${HEADER('server/delivery/channels/')}\nexport const CHANNEL_KINDS = ${JSON.stringify(channelKindHints(), null, 2)} as const;\n`,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = Object.entries(contractFiles());
  for (const [path, text] of files) writeFileSync(new URL(`../${path}`, import.meta.url), text);
  // Written as the formatter would write them, so that `biome check` passes on a fresh file.
  execFileSync(fileURLToPath(new URL('../node_modules/.bin/biome', import.meta.url)), ['format', '--write', ...files.map(([path]) => path)], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: 'ignore',
  });
}

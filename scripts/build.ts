// Builds what the package runs and exports: the generated protobuf code, the command's bundle,
// the client library with its type declarations, and the UI the dashboard port serves.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { build } from 'esbuild';
import { build as buildUi } from 'vite';

const run = (command: string, args: string[]) => execFileSync(command, args, { stdio: 'inherit' });

rmSync('dist', { recursive: true, force: true });
run('buf', ['generate']);

const common = { bundle: true, platform: 'node', format: 'esm', target: 'node22', logLevel: 'warning' } as const;
await Promise.all([
  // The command: everything in one file but the native SQLite module.
  build({
    ...common,
    entryPoints: ['server/cli/main.ts'],
    outfile: 'dist/statusdesk.js',
    external: ['better-sqlite3'],
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  }),
  // The client library: our code and the generated messages; Connect and protobuf stay
  // dependencies, so an application shares them with its other Connect clients.
  build({ ...common, entryPoints: ['client/index.ts'], outfile: 'dist/client.js', packages: 'external' }),
  // The UI: index.html and hashed files under assets/, served by server/dashboard/ui-routes.ts
  // under a CSP that allows only files of its own origin: no inline code, no eval.
  buildUi({
    root: resolve('renderer'),
    configFile: false,
    logLevel: 'warn',
    plugins: [react()],
    build: {
      outDir: resolve('dist/renderer'),
      emptyOutDir: true,
      target: 'es2022',
      assetsInlineLimit: 0,
      modulePreload: { polyfill: false },
      reportCompressedSize: false,
    },
  }),
]);

run('tsc', ['-p', 'tsconfig.client.json']);
cpSync('proto/gen', 'dist/types/proto/gen', { recursive: true, filter: (path) => !path.endsWith('.js') });

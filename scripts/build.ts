// Builds what the package runs and exports: the generated protobuf code, the command's bundle,
// the client library with its type declarations, and the UI the dashboard port serves.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { build, type Plugin } from 'esbuild';
import { build as buildUi } from 'vite';

const run = (command: string, args: string[]) => execFileSync(command, args, { stdio: 'inherit' });

// Everything is built into a folder of its own and then swapped in by renaming, so a service or a
// test running from dist/ meanwhile never sees it half written.
const out = `dist.building-${process.pid}`;
rmSync(out, { recursive: true, force: true });
run('buf', ['generate']);

const common = { bundle: true, platform: 'node', format: 'esm', target: 'node22', logLevel: 'warning' } as const;

/**
 * node:http and node:https imported statically are reached through require: Node builds an ES
 * module's view of a built-in by reading every export, and http's WebSocket, CloseEvent and
 * MessageEvent load undici (some 13 MB) when read. Through require, only the exports a module
 * uses are read. A dynamic import() is left as it is: it runs on first use, and code such as the
 * OTLP exporter destructures its named exports.
 */
const httpByRequire: Plugin = {
  name: 'http-by-require',
  setup(build) {
    build.onResolve({ filter: /^(node:)?https?$/ }, (args) =>
      args.kind === 'import-statement' ? { path: args.path.replace(/^(node:)?/, 'node:'), namespace: 'http-by-require' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'http-by-require' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};
/**
 * zod's namespace carries every locale of its messages (half of its 750 KB), which a start would
 * read and keep; the service speaks English only, so `z.locales` holds English alone.
 */
const zodEnglishOnly: Plugin = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: join(args.resolveDir, '../locales'), namespace: 'zod-english-only' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: args.path,
      loader: 'js',
    }));
  },
};
/** What the overview shares with other screens: its status words, times, sparkline and paged query. */
const FIRST_SCREEN_SHARED = /renderer[\\/]src[\\/](status|time|sparkline)\.tsx|useInfiniteQuery|infiniteQueryObserver/;

const [command] = await Promise.all([
  // The command (statusdesk.js), the desktop app's service host (desktop-host.js, run in a
  // utility process) and the thread that writes check results on SQLite (result-writer.js): all but the native SQLite module, split into chunks under chunks/ that the
  // two share. What only some requests need (the MCP SDK, the content index) is imported on first
  // use, so its chunk is not loaded, parsed or kept in memory by a service that never serves it.
  build({
    ...common,
    entryPoints: {
      statusdesk: 'server/cli/main.ts',
      'desktop-host': 'server/desktop/service-host.ts',
      'result-writer': 'server/checks/result-writer-thread.ts',
    },
    outdir: out,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    external: ['better-sqlite3'],
    metafile: true,
    plugins: [httpByRequire, zodEnglishOnly],
    // Every chunk is a module of its own: each gets the require that bundled CommonJS code calls.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  }),
  // The desktop app's main process, and the preload of its windows (a sandboxed preload is
  // loaded as CommonJS, with only `electron` to require).
  build({ ...common, entryPoints: ['main/src/main.ts'], outfile: `${out}/desktop/main.js`, external: ['electron'] }),
  build({ ...common, entryPoints: ['main/src/preload.ts'], outfile: `${out}/desktop/preload.cjs`, format: 'cjs', platform: 'browser', external: ['electron'] }),
  // The client library: our code and the generated messages; Connect and protobuf stay
  // dependencies, so an application shares them with its other Connect clients.
  build({ ...common, entryPoints: ['client/index.ts'], outfile: `${out}/client.js`, packages: 'external' }),
  // The UI: index.html and hashed files under assets/, served by server/dashboard/ui-routes.ts
  // under a CSP that allows only files of its own origin: no inline code, no eval.
  buildUi({
    root: resolve('renderer'),
    configFile: false,
    logLevel: 'warn',
    plugins: [react()],
    build: {
      outDir: resolve(out, 'renderer'),
      emptyOutDir: true,
      target: 'es2022',
      assetsInlineLimit: 0,
      modulePreload: { polyfill: false },
      reportCompressedSize: false,
      rolldownOptions: {
        output: {
          // The small modules the overview (the first screen) shares with other screens travel as
          // one file, not one each: three requests for the first screen instead of six.
          codeSplitting: {
            groups: [{ name: 'overview-parts', test: FIRST_SCREEN_SHARED, includeDependenciesRecursively: false }],
          },
        },
      },
    },
  }),
]);

// Which sources each file of the command's bundle holds: test/serve-start-modules.test.ts reads
// it to tell what a start loaded. The bundle keeps its whitespace and module comments: stack
// traces stay readable, and the MCP bench finds each module by them (minified, a start was no
// faster within the noise, and 3 MB smaller).
const sources = Object.entries(command.metafile.outputs).map(([file, { inputs }]) => [relative(out, file), Object.keys(inputs)]);
writeFileSync(join(out, 'sources.json'), JSON.stringify(Object.fromEntries(sources)));

run('tsc', ['-p', 'tsconfig.client.json', '--outDir', `${out}/types`]);
cpSync('proto/gen', `${out}/types/proto/gen`, { recursive: true, filter: (path) => !path.endsWith('.js') });

// The UI's scripts and styles also as brotli and gzip files, which ui-routes.ts serves to the
// browsers that accept them: a third of the bytes on the wire, compressed once, here.
const assets = join(out, 'renderer', 'assets');
for (const name of readdirSync(assets)) {
  if (!/\.(js|css|svg|json)$/.test(name)) continue;
  const bytes = readFileSync(join(assets, name));
  writeFileSync(
    join(assets, `${name}.br`),
    brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
  );
  writeFileSync(join(assets, `${name}.gz`), gzipSync(bytes, { level: 9 }));
}

const old = `dist.old-${process.pid}`;
try {
  renameSync('dist', old);
} catch {
  // No earlier build.
}
renameSync(out, 'dist');
rmSync(old, { recursive: true, force: true });

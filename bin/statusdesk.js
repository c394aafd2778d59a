#!/usr/bin/env -S node --max-semi-space-size=8
// Plain JavaScript on purpose: it must run, and refuse clearly, on any Node.js.
import module from 'node:module';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `statusdesk: Node.js ${process.versions.node} is too old; Statusdesk needs Node.js 22.18 or newer ` +
      '(npm start and npm test use the Node.js 24 that npm install puts in node_modules)\n',
  );
  process.exit(1);
}
// V8's code cache on disk, in the user's own cache folder: later starts skip compiling the bundle.
const { default: envPaths } = await import('env-paths');
module.enableCompileCache?.(envPaths('statusdesk', { suffix: '' }).cache);
const bundle = new URL('../dist/statusdesk.js', import.meta.url);
try {
  await import(bundle.href);
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/statusdesk.js')) {
    process.stderr.write('statusdesk: the command is not built yet; run npm install (or npm run build) first\n');
    process.exit(1);
  }
  throw error;
}

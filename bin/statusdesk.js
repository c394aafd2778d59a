#!/usr/bin/env node
// Plain JavaScript on purpose: it must run, and refuse clearly, on any Node.js.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `statusdesk: Node.js ${process.versions.node} is too old; Statusdesk needs Node.js 22.18 or newer ` +
      '(npm start and npm test use the Node.js 24 that npm install puts in node_modules)\n',
  );
  process.exit(1);
}
await import('../server/cli/main.ts');

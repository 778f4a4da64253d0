#!/usr/bin/env node
// The CLI runs from its esbuild bundle (dist/cli, built by `npm run build`):
// one file per command, loaded when the command runs. This entry is CommonJS
// (bin/package.json), so a command on the fast path never starts Node's ES
// module loader (src/cli/entry.ts). The same main() is exported by the
// library build (dist/src) for programs that embed the CLI.
'use strict';
const { join } = require('node:path');
const { runCli } = require('../dist/cli/entry.cjs');

runCli(join(__dirname, '..', 'dist', 'cli'), process.argv.slice(2), { exit: true }).then((code) => {
  process.exitCode = code;
});

#!/usr/bin/env node
// The CLI runs from its esbuild bundle (dist/cli, built by `npm run build`):
// one file per command, loaded when the command runs. The same main() is
// exported by the library build (dist/src) for programs that embed the CLI.
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));

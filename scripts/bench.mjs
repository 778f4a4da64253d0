#!/usr/bin/env node
// `npm run bench`: every benchmark, one JSON object per line on stdout:
// {"name": ..., "value": ..., "unit": ...}. Run after `npm run build`.
import { run as bundle } from '../bench/bundle.mjs';
import { run as capabilities } from '../bench/capabilities.mjs';
import { run as directive } from '../bench/directive.mjs';
import { run as executor } from '../bench/executor.mjs';
import { run as integrity } from '../bench/integrity.mjs';
import { run as lockfile } from '../bench/lockfile.mjs';
import { run as parsers } from '../bench/parsers.mjs';
import { run as providers } from '../bench/providers.mjs';
import { run as registry } from '../bench/registry.mjs';
import { run as startup } from '../bench/startup.mjs';

for (const suite of [
  integrity,
  executor,
  lockfile,
  bundle,
  parsers,
  registry,
  capabilities,
  directive,
  providers,
])
  await suite();
await (await import('../bench/catalog.mjs')).run();
await (await import('../bench/threads-store.mjs')).run();
await (await import('../bench/plan.mjs')).run();
await (await import('../bench/threads.mjs')).run();
await (await import('../bench/sandbox.mjs')).run();
await (await import('../bench/channel.mjs')).run();
await (await import('../bench/example.mjs')).run();
await (await import('../bench/orchestration.mjs')).run();
await startup();
await (await import('../bench/mcp.mjs')).run();

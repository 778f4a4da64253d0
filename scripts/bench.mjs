#!/usr/bin/env node
// `npm run bench`: every benchmark, one JSON object per line on stdout:
// {"name": ..., "value": ..., "unit": ...}. Run after `npm run build`.
import { run as bundle } from '../bench/bundle.mjs';
import { run as executor } from '../bench/executor.mjs';
import { run as integrity } from '../bench/integrity.mjs';
import { run as lockfile } from '../bench/lockfile.mjs';
import { run as parsers } from '../bench/parsers.mjs';
import { run as registry } from '../bench/registry.mjs';
import { run as startup } from '../bench/startup.mjs';

for (const suite of [integrity, executor, lockfile, bundle, parsers, registry, startup])
  await suite();

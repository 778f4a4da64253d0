import type { Command } from 'commander';
import type { CliIo } from '../context.js';
import type { Runner } from '../runner.js';

/** Placeholder until the registry serve commands land. */
export function addServeCommand(_registry: Command, _io: CliIo, _run: Runner): void {}

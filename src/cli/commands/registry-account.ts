import type { Command } from 'commander';
import type { CliIo } from '../context.js';
import type { Runner } from '../runner.js';

/** Placeholder until the registry account commands land. */
export function addAccountCommands(_registry: Command, _io: CliIo, _run: Runner): void {}

import type { Command } from 'commander';
import type { CliIo } from '../context.js';
import type { Runner } from '../runner.js';

/** Placeholder until the registry publish commands land. */
export function addPublishCommands(_registry: Command, _io: CliIo, _run: Runner): void {}

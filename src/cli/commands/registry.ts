import { Command } from 'commander';
import type { CliIo } from '../context.js';
import type { Runner } from '../runner.js';
import { addAccountCommands } from './registry-account.js';
import { addPublishCommands } from './registry-publish.js';
import { addServeCommand } from './registry-serve.js';

/** `rye registry …`: run a registry server, manage an account, push and pull. */
export function registryCommand(io: CliIo, run: Runner): Command {
  const registry = new Command('registry').description(
    'share signed items and bundles: run a registry, log in, push and pull',
  );
  addServeCommand(registry, io, run);
  addAccountCommands(registry, io, run);
  addPublishCommands(registry, io, run);
  return registry;
}

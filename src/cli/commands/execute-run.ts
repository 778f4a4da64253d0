import { RyeError } from '../../errors/index.js';
import { parseItemType } from '../../items/index.js';
import { contextOf, type CliIo, type CommonOptions } from '../context.js';
import { planCommand } from './execute-directive.js';
import { executeToolRun } from './execute-tool-command.js';

export type ExecuteOptions = CommonOptions & {
  readonly params?: string;
  readonly paramsFile?: string;
  readonly dryRun?: boolean;
  readonly frozen?: boolean;
  readonly caps?: string;
  readonly inputs?: string;
  readonly plan?: boolean;
  readonly spawn?: boolean;
  readonly detachedWorker?: boolean;
  readonly limit: readonly string[];
  /** commander's `--no-sandbox`: false when given. */
  readonly sandbox?: boolean;
  readonly explainSandbox?: boolean;
};

/**
 * What `rye execute <type> <item>` does once its command line is parsed: apart
 * from the commander definition so that the argument fast path
 * (../fast-path.ts) runs the same body without loading commander.
 */
export async function executeRun(
  io: CliIo,
  type: string,
  itemId: string,
  options: ExecuteOptions,
): Promise<number> {
  const ctx = contextOf(options, io);
  const itemType = parseItemType(type);
  if (itemType === 'directive') return planCommand(ctx, itemId, options);
  if (itemType !== 'tool') {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot execute ${type}: only tools and directives run (knowledge is loaded)`,
      { type },
    );
  }
  return executeToolRun(ctx, itemId, options);
}

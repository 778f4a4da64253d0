import { isRyeError } from '../../errors/index.js';
import {
  isReservedId,
  parsePermissions,
  readItemMetadata,
  resolveItem,
  type ItemType,
  type Spaces,
} from '../../items/index.js';
import { MAX_CHAIN_LENGTH } from '../../lockfile/index.js';
import { effectivePermissions, readSandboxMode, type SandboxGrants } from '../../executor/index.js';
import { allowed, type CapSet } from '../../capabilities/index.js';

/** The most tools a plan lists the sandbox of (a wide grant lists the first ones, sorted). */
export const MAX_PLANNED_SANDBOXES = 64;

/** One tool's sandbox as a plan shows it: its declaration met with the thread's bound. */
export type PlannedToolSandbox =
  | {
      readonly tool: string;
      readonly read: readonly string[];
      readonly write: readonly string[];
      readonly network: boolean;
      readonly env: readonly string[];
      readonly rye: readonly string[];
      readonly daemon: boolean;
      readonly narrowed: readonly string[];
    }
  | { readonly tool: string; readonly error: string };

/**
 * The effective sandbox of every tool a thread's grants name directly
 * (`--plan`, a dry run): each tool's declared permissions (read from its
 * metadata; the run verifies its signature before anything spawns) narrowed
 * by the thread's `<sandbox>` bound. Runtimes and primitives are not listed;
 * a tool reached through a grant on any executor of its chain (the chain
 * rule: its runtime, or the runtime that runtime names, up to the chain's
 * length) is.
 */
export async function plannedToolSandboxes(
  spaces: Spaces,
  caps: CapSet,
  bound: SandboxGrants | null,
  files: readonly { itemType: ItemType; itemId: string }[],
  operatorMode: 'off' | undefined,
): Promise<{ readonly mode: 'bwrap' | 'off'; readonly tools: readonly PlannedToolSandbox[] }> {
  const granted = (id: string): boolean => allowed(caps, 'execute', 'tool', id);
  const viaChain = chainGranted(spaces, granted);
  const tools: PlannedToolSandbox[] = [];
  const ids = [...new Set(files.filter((f) => f.itemType === 'tool').map((f) => f.itemId))].sort();
  for (const tool of ids) {
    if (tools.length >= MAX_PLANNED_SANDBOXES) break;
    try {
      const metadata = await readItemMetadata(await resolveItem(spaces, 'tool', tool));
      if (metadata.kind !== 'tool' || !metadata.isEntryPoint) continue;
      const { tool_type: type, executor_id: executor } = metadata.fields;
      if (type === 'runtime' || type === 'primitive') continue;
      // The chain rule never admits an id under rye/ (THREADS.md §3): those need their own grant.
      const reached =
        !isReservedId(tool) && typeof executor === 'string' && (await viaChain(executor));
      if (!granted(tool) && !reached) continue;
      const parsed = parsePermissions(metadata.fields.permissions);
      if (parsed.issues.length > 0) {
        tools.push({
          tool,
          error: parsed.issues.map((i) => `${i.field}: ${i.message}`).join('; '),
        });
        continue;
      }
      const { maxFileMb: _mb, ...shown } = effectivePermissions(
        parsed.permissions,
        bound ?? undefined,
      );
      tools.push({ tool, ...shown });
    } catch (error) {
      if (!isRyeError(error)) throw error;
      tools.push({ tool, error: error.message });
    }
  }
  return { mode: operatorMode ?? readSandboxMode(spaces.user), tools };
}

/**
 * Whether an executor id, or one its chain names after it, is granted: the
 * chain rule admits a tool when any later element of its chain is. Each
 * executor is read once per plan; one that cannot be read ends its chain
 * (the run would refuse it).
 */
function chainGranted(
  spaces: Spaces,
  granted: (id: string) => boolean,
): (executor: string) => Promise<boolean> {
  const next = new Map<string, Promise<string | null>>();
  const executorOf = (id: string): Promise<string | null> => {
    let found = next.get(id);
    if (found === undefined) {
      found = resolveItem(spaces, 'tool', id)
        .then(readItemMetadata)
        .then((m) =>
          m.kind === 'tool' && typeof m.fields.executor_id === 'string'
            ? m.fields.executor_id
            : null,
        )
        .catch((error: unknown) => {
          if (isRyeError(error)) return null;
          throw error;
        });
      next.set(id, found);
    }
    return found;
  };
  return async (executor) => {
    let id: string | null = executor;
    // The tool itself is the chain's first link.
    for (let link = 1; id !== null && link < MAX_CHAIN_LENGTH; link += 1) {
      if (granted(id)) return true;
      id = await executorOf(id);
    }
    return false;
  };
}

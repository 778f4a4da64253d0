import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { RyeError } from '../../errors/index.js';
import { sha256Hex } from '../../integrity/index.js';
import { relativeInside } from '../../platform/index.js';
import type { CheckedTree, DependencyCheck } from '../deps/dependencies.js';
import {
  areaDir,
  snapshotLayout,
  type SnapshotArea,
  type SnapshotLayout,
  type SnapshotSource,
} from './snapshot.js';
import type { ChainElement, TemplateVars } from '../types.js';

/** What a run's snapshot holds and the template variables that point into it. */
export interface SnapshotPlan {
  readonly layout: SnapshotLayout;
  readonly sources: readonly SnapshotSource[];
  /** `tool_path`, `tool_dir`, `tool_parent`, `anchor_path` and `runtime_lib` inside the snapshot. */
  readonly vars: TemplateVars;
}

export interface SnapshotInput {
  readonly cacheDir: string;
  readonly chain: readonly ChainElement[];
  readonly deps: DependencyCheck;
  readonly vars: TemplateVars;
  readonly anchorApplied: boolean;
  /** The runtime's `anchor.lib_package`: mount the library as that package. */
  readonly libPackage?: string | null;
}

/**
 * Lay out the snapshot a tool runs from: the files of its dependency scope
 * (area `scope`), the tool file itself (inside the scope when the scope holds
 * it, else alone in area `tool`), and the runtime library (area `lib`), each
 * from the bytes that were checked. The tool file comes from the bytes the
 * chain verified; if the dependency walk read other bytes for it, something
 * rewrote it between the two reads and the run is refused. No I/O but one
 * realpath of the tool file.
 *
 * @throws RyeError EXECUTOR_SOURCE_CHANGED, EXECUTOR_CONFIG_INVALID (an anchor
 *   outside everything the snapshot holds), INTERNAL_ERROR
 */
export function planSnapshot(input: SnapshotInput): SnapshotPlan {
  const { chain, deps, vars } = input;
  const tool = chain[0] as ChainElement;
  if (tool.raw === undefined)
    throw new RyeError('INTERNAL_ERROR', `Cannot snapshot ${tool.itemId}: its bytes were not kept`);
  const toolReal = realpathSync.native(tool.path);
  const toolRaw = tool.raw;
  const toolSha = sha256Hex(toolRaw);
  const sources: SnapshotSource[] = [];
  const add = (area: SnapshotArea, tree: CheckedTree | null, prefix = ''): void => {
    for (const f of tree?.files ?? []) {
      sources.push({
        area,
        rel: prefix + f.relativePath,
        extension: f.extension,
        raw: f.raw,
        rawSha256: f.rawSha256,
      });
    }
  };
  add('scope', deps.scope);
  const libPackage = input.libPackage ?? null;
  if (libPackage === null) add('lib', deps.lib);
  else add('package', deps.lib, `${libPackage}/`);

  const inScope = deps.scope === null ? undefined : relativeInside(deps.scope.base, toolReal);
  const toolArea: SnapshotArea = inScope === undefined || inScope === '' ? 'tool' : 'scope';
  const toolRel = toolArea === 'scope' ? (inScope as string) : basename(tool.path);
  const walked = sources.find((s) => s.area === toolArea && s.rel === toolRel);
  if (walked !== undefined && walked.rawSha256 !== toolSha) {
    throw new RyeError(
      'EXECUTOR_SOURCE_CHANGED',
      `Cannot run ${tool.itemId}: ${tool.path} changed while it was being verified`,
      { itemId: tool.itemId, path: tool.path, expected: toolSha, actual: walked.rawSha256 },
    );
  }
  if (walked === undefined) {
    const extension = tool.extension.toLowerCase();
    sources.push({ area: toolArea, rel: toolRel, extension, raw: toolRaw, rawSha256: toolSha });
  }

  const layout = snapshotLayout(input.cacheDir, sources);
  const toolPath = join(areaDir(layout, toolArea), ...toolRel.split('/'));
  const toolDir = dirname(toolPath);
  const mapped: TemplateVars = {
    ...vars,
    tool_path: toolPath,
    tool_dir: toolDir,
    tool_parent: dirname(toolDir),
    anchor_path: input.anchorApplied ? anchorIn(layout, input, toolReal, toolDir) : toolDir,
    runtime_lib:
      deps.lib === null
        ? ''
        : libPackage === null
          ? areaDir(layout, 'lib')
          : join(areaDir(layout, 'package'), ...libPackage.split('/')),
  };
  return { layout, sources, vars: mapped };
}

/** The anchor folder inside the snapshot: the scope's copy of it, or the tool's own folder. */
function anchorIn(
  layout: SnapshotLayout,
  input: SnapshotInput,
  toolReal: string,
  toolDir: string,
): string {
  const real = realOrSelf(input.vars.anchor_path);
  const scope = input.deps.scope;
  const rel = scope === null ? undefined : relativeInside(scope.base, real);
  if (rel !== undefined) return join(areaDir(layout, 'scope'), ...rel.split('/').filter(Boolean));
  if (real === dirname(toolReal)) return toolDir;
  throw new RyeError(
    'EXECUTOR_CONFIG_INVALID',
    `Cannot run ${input.chain[0]?.itemId ?? '?'}: its anchor ${real} lies outside the folder its runtime verifies, so nothing verified could be loaded from it`,
    { anchorPath: real, scope: scope?.base ?? null },
  );
}

function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

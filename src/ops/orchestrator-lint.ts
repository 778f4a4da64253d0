import type { DirectiveMetadata, DirectiveProgram, Spaces } from '../items/index.js';
import { readItemMetadata, type ResolvedItem } from '../items/index.js';
import {
  allowed,
  capsOfPermissions,
  formatCapability,
  intersectCaps,
} from '../capabilities/index.js';
import { enumerateItemFiles } from '../catalog/index.js';

/** A sign-time warning: a child directive that would not get what it declares. */
export interface OrchestratorWarning {
  readonly directive: string;
  readonly child: string;
  /** The child's declared capabilities the orchestrator does not cover (its `caps_dropped`). */
  readonly caps_lost: readonly string[];
  /** False when the orchestrator does not even hold `execute` on the child. */
  readonly can_execute: boolean;
  readonly message: string;
}

const INPUT_TOKEN = /\{input:[^}]*\}/g;

/** The ids a templated id can name: `{input:x}` stands for one id segment. */
function templateMatcher(template: string): RegExp {
  const parts = template.split(INPUT_TOKEN).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^/]+')}$`);
}

/**
 * Lint an orchestrator at sign time (THREADS.md §3, "Roots and lint"): for
 * every child directive its steps and hooks execute (templated ids matched
 * against the directives that exist), warn when the orchestrator's declared
 * permissions do not cover the child's, naming what the child would lose, or
 * when it cannot execute the child at all. Never refuses: a warning.
 */
export async function lintOrchestrator(
  spaces: Spaces,
  directiveId: string,
  program: DirectiveProgram,
): Promise<OrchestratorWarning[]> {
  const templates = [
    ...program.process.flatMap((step) =>
      step.actions
        .filter((a) => a.verb === 'execute' && a.itemType === 'directive')
        .map((a) => a.itemId ?? ''),
    ),
    ...program.hooks.filter((h) => h.action.kind === 'directive').map((h) => h.action.itemId),
  ].filter((t) => t !== '');
  if (templates.length === 0) return [];
  const parent = capsOfPermissions(program.permissions);
  const directives = enumerateItemFiles(spaces).filter((f) => f.itemType === 'directive');
  const matchers = templates.map(templateMatcher);
  const seen = new Set<string>();
  const warnings: OrchestratorWarning[] = [];
  for (const file of directives) {
    if (file.itemId === directiveId || seen.has(file.itemId)) continue;
    if (!matchers.some((m) => m.test(file.itemId))) continue;
    seen.add(file.itemId);
    const child = await childProgram(file);
    if (child === undefined) continue;
    const declared = capsOfPermissions(child.permissions);
    const lost = intersectCaps(parent.set, declared.set).dropped.map(formatCapability);
    const canExecute = allowed(parent.set, 'execute', 'directive', file.itemId);
    if (lost.length === 0 && canExecute) continue;
    warnings.push({
      directive: directiveId,
      child: file.itemId,
      caps_lost: lost,
      can_execute: canExecute,
      message: canExecute
        ? `child directive ${file.itemId} would lose ${lost.join(', ')}: ${directiveId} does not hold ${lost.length === 1 ? 'it' : 'them'}`
        : `${directiveId} references ${file.itemId} but holds no rye.execute.directive grant covering it`,
    });
  }
  return warnings;
}

/** The child's program, or undefined when it does not parse (its own signing reports that). */
async function childProgram(file: ResolvedItem): Promise<DirectiveProgram | undefined> {
  try {
    const meta = (await readItemMetadata(file)) as DirectiveMetadata;
    return meta.program;
  } catch {
    return undefined;
  }
}

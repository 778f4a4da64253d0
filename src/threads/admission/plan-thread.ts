import type { DirectiveLimits, DirectiveProgram } from '../../items/index.js';
import type { ToolDefinition } from '../conversation/index.js';
import {
  capStrings,
  capsOfPermissions,
  formatCapability,
  intersectCaps,
  type Authority,
  type Capability,
} from '../../capabilities/index.js';
import {
  admitHooks,
  interpolate,
  resolveInputs,
  resolveLimits,
  returnSchemaOf,
  type AdmittedHook,
  type InputValues,
  type ResolvedLimits,
} from '../directive/index.js';
import {
  renderFirstMessage,
  renderSystemPrompt,
  toolDefinitions,
  type ToolOffer,
} from '../prompt/index.js';
import { threadSandboxGrants } from './sandbox-grants.js';
import { worstCaseOf, type ModelForPlan, type WorstCase } from './worst-case-plan.js';
import type { SandboxGrants } from '../../executor/index.js';

/** A directive verified with full coverage, as `load` returns it. */
export interface AdmittedDirective {
  readonly id: string;
  readonly space: string;
  /** The verified text, signature line removed. */
  readonly content: string;
  readonly content_sha256: string;
  readonly program: DirectiveProgram;
}

export interface PlanInput {
  readonly directive: AdmittedDirective;
  /** The caller's inputs, unchecked. */
  readonly inputs: unknown;
  /** Whose authority the thread is admitted under (the root's set is declared ∩ this). */
  readonly authority: Authority;
  /** The operator's `--limit k=v` overrides. */
  readonly limitOverrides?: DirectiveLimits;
  /** Builds the per-operation id offers from the admitted set (catalog I/O happens before). */
  readonly offer: (caps: Authority['caps']) => Omit<ToolOffer, 'returnSchema'>;
  /** The resolved provider model, or null when it cannot be resolved (the plan says why). */
  readonly model: ModelForPlan | null;
}

/** The exact first request a thread would send, and what bounds it (THREADS.md §14 `--plan`). */
export interface ThreadPlan {
  readonly directive: {
    readonly id: string;
    readonly space: string;
    readonly content_sha256: string;
  };
  readonly inputs: InputValues;
  readonly capabilities: readonly string[];
  readonly caps_dropped: readonly string[];
  readonly limits: ResolvedLimits;
  /** What the thread's tools' sandboxes are narrowed to (its `<sandbox>`, met with the caller's); null: no narrowing. */
  readonly sandbox: SandboxGrants | null;
  /** The hooks as admitted (ids and inputs interpolated): `hooks_admitted` (THREADS.md §12). */
  readonly hooks: readonly AdmittedHook[];
  readonly model: ModelForPlan | null;
  readonly system_prompt: string;
  readonly first_message: string;
  readonly tools: readonly ToolDefinition[];
  readonly worst_case: WorstCase | null;
}

/**
 * Admit a directive on paper (THREADS.md §2): check the inputs against
 * `<inputs>`, derive the capabilities from the un-interpolated
 * `<permissions>` and meet them with the caller's authority (what the
 * directive declared but does not get is `caps_dropped`), resolve the limits,
 * render the system prompt, the first message and the tool definitions, and
 * admit the hooks and price the worst case. Pure.
 *
 * @throws RyeError INPUTS_INVALID, VALIDATION_FAILED (interpolation),
 *   CAPABILITY_INVALID (a bad grant)
 */
export function planThread(input: PlanInput): ThreadPlan {
  const { directive, authority } = input;
  const program = directive.program;
  const inputs = resolveInputs(program.inputs, input.inputs, directive.id);
  const declared = capsOfPermissions(program.permissions);
  const admitted = intersectCaps(authority.caps, declared.set);
  const dropped = uniqueStrings([...declared.dropped, ...admitted.dropped]);
  const returnSchema = returnSchemaOf(program);
  const offer: ToolOffer = {
    ...input.offer(admitted.set),
    returnSchema: returnSchema === undefined ? null : { ...returnSchema.jsonSchema },
  };
  const capabilities = capStrings(admitted.set);
  const sandbox = threadSandboxGrants(
    program.permissions.sandbox,
    inputs,
    authority.sandbox,
    directive.id,
  );
  const system_prompt = renderSystemPrompt({
    directiveId: directive.id,
    directiveText: interpolate(
      directive.content,
      inputs,
      program.inputs.map((i) => i.name),
    ),
    capabilities,
    capsDropped: dropped,
    returns: returnSchema !== undefined,
  });
  const first_message = renderFirstMessage(inputs);
  const tools = toolDefinitions(offer);
  const limits = resolveLimits(program.limits, input.limitOverrides);
  const hooks = admitHooks(program, inputs);
  return {
    directive: {
      id: directive.id,
      space: directive.space,
      content_sha256: directive.content_sha256,
    },
    inputs,
    capabilities,
    caps_dropped: dropped,
    limits,
    sandbox,
    hooks,
    model: input.model,
    system_prompt,
    first_message,
    tools,
    worst_case:
      input.model === null
        ? null
        : worstCaseOf({ model: input.model, limits, system_prompt, first_message, tools }),
  };
}

function uniqueStrings(caps: readonly Capability[]): string[] {
  return [...new Set(caps.map(formatCapability))].sort();
}

import { RyeError, isRyeError } from '../errors/index.js';
import type { ChannelHandler } from '../executor/index.js';
import { ITEM_TYPES, type ItemType } from '../items/index.js';
import {
  CAPABILITY_PREFIX,
  CAP_VERBS,
  narrowAuthority,
  patternOfValue,
  patternProblem,
  requireAllowed,
  type Authority,
  type CapVerb,
  type Capability,
} from '../capabilities/index.js';
import type { OperationContext, OperationRunner } from './context.js';
import { errorResult } from './error-result.js';
import { THREAD_TOOL_PREFIX } from './execute-thread-tool.js';

/**
 * The verbs a `*` verb in a tool's `rye:` stands for. Never `sign`: like a
 * directive's grant, signing is named on its own (`rye.sign.<type>.<id>`).
 */
const WILDCARD_VERBS: readonly CapVerb[] = CAP_VERBS.filter((verb) => verb !== 'sign');

/**
 * How deep tools may run tools through the channel (a tool's `execute` runs
 * another tool, whose channel is one deeper). Each level is a sandbox of its
 * own, outside the caller's process limits: the depth bounds the fan-out.
 */
export const MAX_CHANNEL_DEPTH = 3;

/**
 * The operation channel's answers (CONTAINMENT.md §1.7): each request runs
 * through `runOperation` under `ctx.authority` narrowed to the tool's signed
 * `rye:` patterns, so it must be allowed by both. An `execute` of a
 * directive is refused (THREAD_NESTED_DIRECTIVE) before anything is read; a
 * thread tool needs its grant in the narrowed set even inside a thread, where
 * the model holds it implicitly. Refusals are `status: "error"` results with
 * the project's codes (CAPABILITY_DENIED, OPERATION_INPUT_INVALID…); only a
 * bug throws.
 */
export function channelHandler(
  ctx: OperationContext,
  runOperation: OperationRunner,
): ChannelHandler {
  // One tool call's channel passes the same patterns every time: narrow once.
  let narrowedFor: readonly string[] | undefined;
  let narrowed: Authority | undefined;
  const authorityFor = (patterns: readonly string[]): Authority => {
    if (narrowed === undefined || narrowedFor !== patterns) {
      narrowed = narrowAuthority(
        ctx.authority,
        capsOfToolPatterns(patterns),
        ctx.authority.source === 'operator' ? 'caps' : ctx.authority.source,
      );
      narrowedFor = patterns;
    }
    return narrowed;
  };
  return async (request, toolPatterns) => {
    const input = request.input;
    const itemId = stringField(input, 'item_id');
    try {
      // Recorded and counted first, whatever comes of it (a thread's tool_calls).
      const refused = ctx.onNestedCall?.(request);
      if (refused !== undefined) throw new RyeError(refused.code, refused.message, {});
      if (request.op === 'execute' && stringField(input, 'item_type') === 'directive')
        throw new RyeError(
          'THREAD_NESTED_DIRECTIVE',
          'Cannot execute a directive from a tool: the operation channel starts no thread',
          { operation: 'execute', item_type: 'directive' },
        );
      const channelDepth = (ctx.channelDepth ?? 0) + 1;
      if (request.op === 'execute' && channelDepth > MAX_CHANNEL_DEPTH)
        throw new RyeError(
          'CHANNEL_DENIED',
          `Cannot execute through the channel: tools may run tools ${MAX_CHANNEL_DEPTH} deep at most`,
          { operation: 'execute', depth: channelDepth },
        );
      const authority = authorityFor(toolPatterns);
      if (request.op === 'execute' && itemId?.startsWith(THREAD_TOOL_PREFIX) === true)
        requireAllowed(authority, 'execute', 'tool', itemId);
      // A nested call's own tools report to the same thread, under the same tool call.
      return await runOperation(request.op, input, { ...ctx, authority, channelDepth });
    } catch (error) {
      if (isRyeError(error)) return errorResult(error, itemId);
      throw error;
    }
  };
}

/**
 * A tool's signed `rye:` patterns as capabilities: `rye.<verb>.<type>.<id>`,
 * where the verb or type may be `*` (or left out, as may the id: every one),
 * and the id is written with `/` or dots (`rye.execute.tool.rye.file-system.*`
 * is `rye/file-system/*`), as in a directive's grants. A pattern that does not
 * parse grants nothing (fail closed). Pure.
 */
export function capsOfToolPatterns(patterns: readonly string[]): Capability[] {
  const caps: Capability[] = [];
  for (const text of patterns) {
    if (!text.startsWith(CAPABILITY_PREFIX)) continue;
    const [verb = '*', type = '*', ...rest] = text.slice(CAPABILITY_PREFIX.length).split('.');
    const value = rest.length === 0 ? '*' : rest.join('.');
    const pattern = patternOfValue(value);
    if (patternProblem(pattern) !== undefined) continue;
    const verbs = verb === '*' ? WILDCARD_VERBS : CAP_VERBS.filter((known) => known === verb);
    const types: readonly ItemType[] =
      type === '*' ? ITEM_TYPES : ITEM_TYPES.filter((known) => known === type);
    for (const v of verbs) for (const t of types) caps.push({ verb: v, type: t, pattern });
  }
  return caps;
}

function stringField(input: unknown, name: string): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  if (!Object.hasOwn(input, name)) return undefined;
  const value = (input as Record<string, unknown>)[name];
  return typeof value === 'string' && value.length <= 512 ? value : undefined;
}

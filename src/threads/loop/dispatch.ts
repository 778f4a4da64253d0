/**
 * The runner's tool-call phase, one call: a call from the model checked
 * (offered, well-formed, within the thread's capabilities) and run as an
 * operation, a `directive_return` or a child thread. tool-calls.ts runs an
 * answer's calls through it.
 */
import { RyeError, isRyeError } from '../../errors/index.js';
import { isReservedId, parseItemType } from '../../items/index.js';
import { allowed, requireAllowed } from '../../capabilities/index.js';
import { validateReturn, type ReturnSchema } from '../directive/index.js';
import { reaches, threadsNamed } from '../store/thread-reach.js';
import type { LimitHit } from './limits-check.js';
import {
  OPERATION_SCHEMAS,
  THREAD_TOOL_PREFIX,
  errorResult,
  type ExecuteInput,
  parseOperationInput,
  runOperation,
  type OperationContext,
  type OperationName,
  type OperationResult,
} from '../../ops/index.js';

/** One tool call from the model, as the adapter normalised it. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  readonly invalid_input?: string;
}

/** What one call came to. */
export interface CallOutcome {
  readonly result: OperationResult;
  /** The call was refused for want of a capability. */
  readonly denied: boolean;
  /** A valid `directive_return`: the outputs, outcome included. */
  readonly returned?: Readonly<Record<string, unknown>>;
  /** A limit the call reached (a spawn past `spawns` or `depth`): the thread stops. */
  readonly limit?: LimitHit;
}

export const OPERATION_TOOLS: Readonly<Record<string, OperationName>> = {
  rye_execute: 'execute',
  rye_search: 'search',
  rye_load: 'load',
  rye_sign: 'sign',
};

export const RETURN_TOOL = 'directive_return';

/** What a call runs with: the thread's authority, the names it was offered, its return schema. */
export interface DispatchContext {
  readonly ops: OperationContext;
  readonly offered: ReadonlySet<string>;
  readonly returnSchema: ReturnSchema | undefined;
  /** Present the thread's token before each operation (THREADS.md §4); absent for a lone thread. */
  readonly presentToken?: () => void;
  /** Start a child thread; absent for a lone thread (THREAD_NESTED_DIRECTIVE). */
  readonly spawn?: (input: ExecuteInput) => Promise<CallOutcome>;
}

/**
 * The capability a call needs, as `rye.<verb>.<type>.<id>`, when its input
 * names one (for `tool_call_start`); null otherwise. Pure.
 */
export function requiredCapOf(name: string, input: unknown): string | null {
  const verb = OPERATION_TOOLS[name];
  if (verb === undefined || typeof input !== 'object' || input === null) return null;
  const { item_type: type, item_id: id, query } = input as Record<string, unknown>;
  const target = verb === 'search' ? query : id;
  if (typeof type !== 'string' || typeof target !== 'string' || target.length > 512) return null;
  return `rye.${verb}.${type}.${target}`;
}

/**
 * Whether `call` will be refused for want of a capability, decided before
 * any call of its message runs, so the five-denial stop falls before the
 * calls after it are dispatched (THREADS.md §5). Exact for what the id alone
 * decides (load, sign of one id, a directive, a tool granted or under `rye/`);
 * for a tool only the chain rule could admit, a dry run (no spawn) decides.
 * A search filters instead of refusing: it is not counted. A thread tool is
 * granted on the caller's own descendants: a call naming any other thread is.
 */
export async function predictDenied(call: ToolCall, ctx: DispatchContext): Promise<boolean> {
  const verb = OPERATION_TOOLS[call.name];
  if (verb === undefined || verb === 'search' || !ctx.offered.has(call.name)) return false;
  if (typeof call.input !== 'object' || call.input === null) return false;
  const { item_type: rawType, item_id: id } = call.input as Record<string, unknown>;
  if (typeof rawType !== 'string' || typeof id !== 'string' || id.length > 512) return false;
  let type;
  try {
    type = parseItemType(rawType);
  } catch {
    return false;
  }
  const caps = ctx.ops.authority.caps;
  if (verb === 'sign' && /[*?[{]/.test(id)) return false;
  if (verb === 'execute' && type === 'tool' && id.startsWith(THREAD_TOOL_PREFIX)) {
    // Granted on the caller's own descendants: a call naming any other thread is denied.
    const named = threadsNamed((call.input as Record<string, unknown>)['parameters']);
    if (named.some((thread) => !reaches(ctx.ops.spaces.project, thread, ctx.ops.thread)))
      return true;
  }
  if (allowed(caps, verb, type, id)) return false;
  if (verb !== 'execute' || type !== 'tool') return true;
  if (id.startsWith(THREAD_TOOL_PREFIX)) return false;
  if (isReservedId(id)) return true;
  const plan = await runOperation('execute', { ...call.input, dry_run: true }, ctx.ops);
  return plan.status === 'error' && plan.error.code === 'CAPABILITY_DENIED';
}

/**
 * Run one call under the thread's authority. Every refusal is an error
 * result to the model (never a throw): a name not offered
 * (THREAD_TOOL_UNKNOWN), arguments that are not an object
 * (PROVIDER_RESPONSE_INVALID), input failing the operation's strict schema
 * (OPERATION_INPUT_INVALID: `capabilities`, `limits` or `parent` smuggled in
 * are unknown keys), a token that no longer verifies
 * (CAPABILITY_TOKEN_INVALID), a missing capability (CAPABILITY_DENIED), a
 * directive outside a tree (THREAD_NESTED_DIRECTIVE), a return that does not
 * match `<outputs>` (OPERATION_INPUT_INVALID).
 */
export async function dispatchCall(call: ToolCall, ctx: DispatchContext): Promise<CallOutcome> {
  try {
    if (!ctx.offered.has(call.name))
      throw new RyeError(
        'THREAD_TOOL_UNKNOWN',
        `Cannot call ${call.name.slice(0, 64)}: this thread offers ${[...ctx.offered].join(', ')}`,
        { name: call.name.slice(0, 64) },
      );
    if (call.invalid_input !== undefined)
      throw new RyeError(
        'PROVIDER_RESPONSE_INVALID',
        `Cannot run ${call.name}: its arguments are not a JSON object (${call.invalid_input})`,
        { reason: call.invalid_input },
      );
    if (call.name === RETURN_TOOL) return returnOutcome(call.input, ctx.returnSchema);
    const op = OPERATION_TOOLS[call.name] as OperationName;
    ctx.presentToken?.();
    if (
      op === 'execute' &&
      (call.input as { item_type?: unknown } | null)?.item_type === 'directive'
    )
      return await nestedDirective(call.input, ctx);
    const result = await runOperation(op, call.input, ctx.ops);
    return {
      result,
      denied: result.status === 'error' && result.error.code === 'CAPABILITY_DENIED',
    };
  } catch (error) {
    if (!isRyeError(error)) throw error;
    return { result: errorResult(error), denied: error.code === 'CAPABILITY_DENIED' };
  }
}

async function nestedDirective(input: unknown, ctx: DispatchContext): Promise<CallOutcome> {
  const parsed = parseOperationInput('execute', OPERATION_SCHEMAS.execute, input);
  requireAllowed(ctx.ops.authority, 'execute', 'directive', parsed.item_id);
  // A dry run only plans: the ops door answers it under the thread's authority.
  if (parsed.dry_run === true)
    return { result: await runOperation('execute', parsed, ctx.ops), denied: false };
  if (ctx.spawn !== undefined) return ctx.spawn(parsed);
  // A thread run without a tree (no links) cannot start children.
  throw new RyeError(
    'THREAD_NESTED_DIRECTIVE',
    `Cannot run directive ${parsed.item_id} inside this thread: it runs without a thread tree`,
    { item_id: parsed.item_id },
  );
}

function returnOutcome(input: unknown, schema: ReturnSchema | undefined): CallOutcome {
  if (schema === undefined)
    throw new RyeError('THREAD_TOOL_UNKNOWN', 'Cannot return: this directive declares no outputs', {
      name: RETURN_TOOL,
    });
  const issues = validateReturn(schema, input);
  if (issues.length > 0) {
    const list = issues.map((i) => `${i.field || '(root)'}: ${i.message}`).join('; ');
    throw new RyeError('OPERATION_INPUT_INVALID', `Cannot accept the return value: ${list}`, {
      operation: RETURN_TOOL,
      issues: issues.map((i) => ({ path: i.field, message: i.message })),
    });
  }
  const outputs = input as Record<string, unknown>;
  return {
    result: { status: 'success', item_id: '', data: { accepted: true } } as OperationResult,
    denied: false,
    returned: outputs,
  };
}

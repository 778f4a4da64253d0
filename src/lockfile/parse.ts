import { RyeError, isRyeError } from '../errors/index.js';
import { jsonNodeToValue, parseJsonAst } from '../integrity/index.js';
import type { JsonNode, JsonObjectNode } from '../integrity/index.js';
import { problemWith } from '../items/index.js';
import {
  FieldReader,
  type FieldProblem,
  type FieldSource,
  type JsonObject,
  type StringRule,
} from '../platform/index.js';
import { relativePathProblem, versionProblem } from './paths.js';
import type { LockedElement, LockedRoot, Lockfile, VerifiedDeps } from './types.js';

/** Largest lockfile text accepted (UTF-8 bytes): a chain of 10 plus a file list is far smaller. */
export const MAX_LOCKFILE_BYTES = 4 * 1024 * 1024;
/** Longest resolved chain accepted (tool → runtimes → primitive). */
export const MAX_CHAIN_LENGTH = 10;

const HEX_RE = /^[0-9a-f]{64}$/;
const FILE_HASH_RE = /^sha256:[0-9a-f]{64}$/;
// ISO 8601: TS writes `Z`, Python `+00:00`; a naive Python timestamp has no offset.
const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})?$/;
const SCOPES: readonly string[] = ['anchor', 'tool_dir', 'tool_siblings', 'tool_file'];

/**
 * Parse and validate a lockfile (UNTRUSTED text: read from any space or a
 * bundle). Accepts versions 1 and 2 as written by this implementation or the
 * Python one (`+00:00` timestamps, `system:<bundle>` spaces, no final newline,
 * extra keys ignored). Every issue is collected, then reported once.
 *
 * Guarantees on return: integrities are 64 lowercase hex; ids are valid item
 * ids; the chain has 1..10 elements and `root` matches its first element;
 * `verifiedDeps` is present exactly on v2 and its paths cannot leave the project.
 *
 * @throws RyeError LOCKFILE_INVALID (details.issues lists every problem; parse
 *   errors and unsafe JSON such as duplicate keys are the cause), or
 *   LOCKFILE_VERSION_UNSUPPORTED when `lockfile_version` is present but not 1 or 2.
 */
export function parseLockfile(text: string, source: string): Lockfile {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_LOCKFILE_BYTES) {
    throw invalid(source, [`it is ${bytes} bytes, over the cap of ${MAX_LOCKFILE_BYTES}`]);
  }
  let node: JsonNode;
  try {
    node = parseJsonAst(text, source);
  } catch (error) {
    // Defensive: the JSON parser throws only RyeErrors; anything else is a bug to surface.
    /* v8 ignore if */
    if (!isRyeError(error)) throw error;
    // Its messages all open with this; the issue is the rest.
    const why = error.message.replace(`Cannot parse JSON in ${source}: `, '');
    throw invalid(source, [why], error);
  }
  if (node.type !== 'object') throw invalid(source, ['the top level is not a JSON object']);
  const issues = new Issues();
  const version = versionOf(node, source, issues);
  const doc = jsonNodeToValue(node) as JsonObject;
  const lockfile = readDocument(doc, version, issues);
  if (issues.list.length > 0) throw invalid(source, issues.list);
  return lockfile;
}

function versionOf(root: JsonObjectNode, source: string, issues: Issues): 1 | 2 | undefined {
  const value = root.entries.find((e) => e.key === 'lockfile_version')?.value;
  if (value === undefined) {
    issues.add('lockfile_version', 'missing');
    return undefined;
  }
  // Exactly the integer literals 1 and 2: `1.0`, `"2"` and `true` are other formats.
  if (value.type === 'number' && (value.lexeme === '1' || value.lexeme === '2')) {
    return value.lexeme === '1' ? 1 : 2;
  }
  const shown = JSON.stringify(jsonNodeToValue(value)).slice(0, 40);
  throw new RyeError(
    'LOCKFILE_VERSION_UNSUPPORTED',
    `Cannot read lockfile ${source}: lockfile_version ${shown} is not supported (this rye reads 1 and 2)`,
    { source, version: shown, supported: [1, 2] },
  );
}

function readDocument(doc: JsonObject, version: 1 | 2 | undefined, issues: Issues): Lockfile {
  const generatedAt = issues.string(doc, 'generated_at', '', (s) =>
    TIMESTAMP_RE.test(s) ? undefined : 'is not an ISO 8601 timestamp',
  );
  const rootObj = issues.read.objectField(doc, 'root', '');
  const root = {
    toolId: issues.string(rootObj, 'tool_id', 'root', problemWith),
    version: issues.string(rootObj, 'version', 'root', versionProblem),
    integrity: issues.string(rootObj, 'integrity', 'root', hexProblem),
  };
  const chain = readChain(doc, issues);
  crossCheck(root, chain[0], issues);
  let registry: JsonObject | null = null;
  if (Object.hasOwn(doc, 'registry') && doc['registry'] !== null) {
    registry = issues.read.objectField(doc, 'registry', '') ?? null;
  }
  let signature: string | null = null;
  if (Object.hasOwn(doc, '_signature')) signature = issues.string(doc, '_signature', '');
  const base = { generatedAt, root, resolvedChain: chain, registry };
  const hasDeps = Object.hasOwn(doc, 'verified_deps');
  if (version === 1) {
    if (hasDeps) issues.add('verified_deps', 'is not allowed in lockfile_version 1');
    return { lockfileVersion: 1, ...base, signature };
  }
  // Version missing (already an issue): still check verified_deps if it is there.
  if (!hasDeps && version === 2)
    issues.add('verified_deps', 'missing (lockfile_version 2 requires it)');
  const verifiedDeps = readDeps(
    hasDeps ? issues.read.objectField(doc, 'verified_deps', '') : undefined,
    issues,
  );
  return { lockfileVersion: 2, ...base, verifiedDeps, signature };
}

function readChain(doc: JsonObject, issues: Issues): LockedElement[] {
  const value = issues.read.array(doc, 'resolved_chain', '');
  if (value === undefined) return [];
  if (value.length === 0) issues.add('resolved_chain', 'is empty');
  if (value.length > MAX_CHAIN_LENGTH) {
    issues.add(
      'resolved_chain',
      `has ${value.length} elements, over the cap of ${MAX_CHAIN_LENGTH}`,
    );
  }
  return value.map((item: unknown, i) => {
    const at = `resolved_chain[${i}]`;
    const o = issues.read.object(item, at);
    return {
      itemId: issues.string(o, 'item_id', at, problemWith),
      space: issues.string(o, 'space', at, spaceProblem),
      toolType: issues.nullableString(o, 'tool_type', at),
      executorId: issues.nullableString(o, 'executor_id', at, problemWith),
      integrity: issues.string(o, 'integrity', at, hexProblem),
    };
  });
}

function readDeps(o: JsonObject | undefined, issues: Issues): VerifiedDeps {
  const at = 'verified_deps';
  // "." is the base folder itself (an anchor rooted at the project path).
  const anchorPath = issues.string(o, 'anchor_path', at, (p) =>
    p === '.' ? undefined : relativePathProblem(p),
  );
  const scope = issues.string(o, 'scope', at, (s) =>
    SCOPES.includes(s) ? undefined : `is not one of ${SCOPES.join(', ')}`,
  ) as VerifiedDeps['scope'];
  const files = issues.read.objectField(o, 'files', at) ?? {};
  for (const [path, hash] of Object.entries(files)) {
    const where = `${at}.files[${JSON.stringify(path)}]`;
    const why = relativePathProblem(path);
    if (why !== undefined) issues.add(where, why);
    if (typeof hash !== 'string' || !FILE_HASH_RE.test(hash)) {
      issues.add(where, 'is not "sha256:<64 lowercase hex>"');
    }
  }
  // A copy by fromEntries: data properties, so a `__proto__` path stays a path.
  return {
    anchorPath,
    scope,
    files: Object.fromEntries(Object.entries(files)) as Record<string, string>,
  };
}

/** root names chain[0]; compared only when both sides are well formed (else already an issue). */
function crossCheck(root: LockedRoot, first: LockedElement | undefined, issues: Issues): void {
  if (first === undefined) return;
  const ids = [first.itemId, root.toolId].every((id) => problemWith(id) === undefined);
  if (ids && first.itemId !== root.toolId) {
    issues.add(
      'root.tool_id',
      `"${root.toolId}" is not resolved_chain[0].item_id "${first.itemId}"`,
    );
  }
  const hashes = [first.integrity, root.integrity].every((h) => HEX_RE.test(h));
  if (hashes && first.integrity !== root.integrity) {
    issues.add('root.integrity', 'differs from resolved_chain[0].integrity');
  }
}

/** project | user | system, or Python's `system:<bundle id>` (an item-id-like name). */
function spaceProblem(space: string): string | undefined {
  if (space === 'project' || space === 'user' || space === 'system') return undefined;
  if (space.startsWith('system:') && problemWith(space.slice(7)) === undefined) return undefined;
  return 'is not project, user, system or system:<bundle>';
}

function hexProblem(value: string): string | undefined {
  return HEX_RE.test(value) ? undefined : 'is not 64 lowercase hex characters';
}

/**
 * Collects "<where>: <why>" issues from platform's FieldReader (`read`) and
 * from the checks of this file (`add`). Readers return a harmless placeholder
 * ('' or undefined) on a problem: the caller throws before any placeholder
 * escapes. An undefined container (already reported) yields no further issues.
 */
class Issues {
  readonly list: string[] = [];
  readonly read = new FieldReader((field, problem) => this.add(field, wording(problem)));

  add(at: string, why: string): void {
    this.list.push(`${at}: ${why}`);
  }

  string(o: FieldSource | undefined, key: string, at: string, check?: Check): string {
    return this.read.string(o, key, at, rule('required', check)) ?? '';
  }

  nullableString(
    o: FieldSource | undefined,
    key: string,
    at: string,
    check?: Check,
  ): string | null {
    const value = this.read.string(o, key, at, rule('nullable', check));
    return value === undefined ? '' : value;
  }
}

function rule(absent: 'required' | 'nullable', check: Check | undefined): StringRule {
  return check === undefined ? { absent } : { absent, check };
}

type Check = (value: string) => string | undefined;

const A: Readonly<Record<string, string>> = { object: 'an object', array: 'an array' };

function wording(problem: FieldProblem): string {
  switch (problem.kind) {
    case 'type':
      return `is ${kindOf(problem.actual)}, not ${A[problem.expected] ?? `a ${problem.expected}`}`;
    case 'invalid':
      return problem.why;
    default:
      // `missing`, and the kinds no read here can report (no caps, no enums).
      return problem.kind;
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function invalid(source: string, issues: readonly string[], cause?: unknown): RyeError {
  const shown =
    issues.slice(0, 3).join('; ') + (issues.length > 3 ? `; and ${issues.length - 3} more` : '');
  return new RyeError(
    'LOCKFILE_INVALID',
    `Cannot read lockfile ${source}: ${shown}`,
    { source, issues },
    cause === undefined ? {} : { cause },
  );
}

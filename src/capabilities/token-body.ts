import type { JsonNode, JsonObjectNode } from '../integrity/index.js';
import { tryParseCapability, type Capability } from './capability.js';
import { HOLDER_PK_RE } from './holder-key.js';
import { tokenInvalid } from './token-error.js';

/** The signed part of a token block (THREADS.md §4), field names as on the wire. */
export interface TokenBody {
  readonly v: 1;
  /** The root thread id. */
  readonly tree: string;
  /** The holder's thread id; `null` only in the root block of a ceiling token. */
  readonly thread: string | null;
  readonly depth: number;
  /** Hex SHA-256 of the previous block's canonical JSON; `null` in block 0. */
  readonly prev: string | null;
  /** `audienceOf(project realpath, user key fingerprint)`. */
  readonly aud: string;
  /** Capability strings, sorted and unique. */
  readonly caps: readonly string[];
  /** Unix seconds. */
  readonly nbf: number;
  readonly exp: number;
  /** 128 random bits, hex. */
  readonly jti: string;
  /** The holder's in-memory public key (base64url SPKI); `null` when nobody may extend it. */
  readonly holder_pk: string | null;
}

/** A thread id as THREADS.md §8 defines it (`parseThreadId`'s regex). */
export const THREAD_ID_RE = /^[a-z0-9_]{1,40}-[0-9a-hjkmnp-tv-z]{26}$/;
export const HEX64_RE = /^[0-9a-f]{64}$/;
export const JTI_RE = /^[0-9a-f]{32}$/;
/** Deepest holder accepted; far beyond any depth limit, it only bounds the integer. */
export const MAX_TOKEN_DEPTH = 1000;

const BODY_KEYS = [
  'aud',
  'caps',
  'depth',
  'exp',
  'holder_pk',
  'jti',
  'nbf',
  'prev',
  'thread',
  'tree',
  'v',
];

/** The body as a JSON node, ready for `canonicalJson`. Pure. */
export function bodyNode(body: TokenBody): JsonObjectNode {
  const str = (value: string): JsonNode => ({ type: 'string', value });
  const int = (value: number): JsonNode => ({ type: 'number', lexeme: String(value), kind: 'int' });
  const orNull = (value: string | null): JsonNode =>
    value === null ? { type: 'null' } : str(value);
  return {
    type: 'object',
    entries: [
      { key: 'v', value: int(body.v) },
      { key: 'tree', value: str(body.tree) },
      { key: 'thread', value: orNull(body.thread) },
      { key: 'depth', value: int(body.depth) },
      { key: 'prev', value: orNull(body.prev) },
      { key: 'aud', value: str(body.aud) },
      { key: 'caps', value: { type: 'array', items: body.caps.map(str) } },
      { key: 'nbf', value: int(body.nbf) },
      { key: 'exp', value: int(body.exp) },
      { key: 'jti', value: str(body.jti) },
      { key: 'holder_pk', value: orNull(body.holder_pk) },
    ],
  };
}

/** A body read from the wire, its capability strings parsed once. */
export interface ReadBody {
  readonly body: TokenBody;
  readonly capabilities: readonly Capability[];
}

/**
 * Read a block body from untrusted JSON: exactly the eleven fields, each of
 * its type and form (ids, hex, integers written as integers, capability
 * strings valid, sorted and unique). Pure.
 *
 * @throws RyeError CAPABILITY_TOKEN_INVALID (reason `malformed`)
 */
export function readBody(node: JsonNode, block: number): ReadBody {
  const bad = (why: string): never => {
    throw tokenInvalid('malformed', `the body ${why}`, block);
  };
  if (node.type !== 'object') return bad('is not an object');
  const keys = node.entries.map((e) => e.key).sort();
  if (keys.join(',') !== BODY_KEYS.join(','))
    return bad(`must hold exactly ${BODY_KEYS.join(', ')}`);
  const field = (key: string): JsonNode =>
    node.entries.find((e) => e.key === key)?.value ?? { type: 'null' };
  const text = (key: string, re: RegExp, nullable = false): string | null => {
    const value = field(key);
    if (nullable && value.type === 'null') return null;
    if (value.type !== 'string' || !re.test(value.value)) return bad(`has an invalid "${key}"`);
    return value.value;
  };
  const int = (key: string, max = Number.MAX_SAFE_INTEGER): number => {
    const value = field(key);
    if (value.type !== 'number' || value.kind !== 'int' || value.lexeme.startsWith('-'))
      return bad(`has an invalid "${key}" (a non-negative integer)`);
    const n = Number(value.lexeme);
    if (!Number.isSafeInteger(n) || n > max) return bad(`has "${key}" out of range`);
    return n;
  };
  if (int('v') !== 1) return bad('has version "v" other than 1');
  const caps = field('caps');
  if (caps.type !== 'array') return bad('has "caps" that is not an array');
  const capStrings: string[] = [];
  const capabilities: Capability[] = [];
  for (const item of caps.items) {
    const cap = item.type === 'string' ? tryParseCapability(item.value) : undefined;
    if (cap === undefined || item.type !== 'string')
      return bad('has an invalid capability in "caps"');
    const last = capStrings[capStrings.length - 1];
    if (last !== undefined && !(last < item.value)) return bad('has "caps" not sorted and unique');
    capStrings.push(item.value);
    capabilities.push(cap);
  }
  const body: TokenBody = {
    v: 1,
    tree: text('tree', THREAD_ID_RE) as string,
    thread: text('thread', THREAD_ID_RE, true),
    depth: int('depth', MAX_TOKEN_DEPTH),
    prev: text('prev', HEX64_RE, true),
    aud: text('aud', HEX64_RE) as string,
    caps: capStrings,
    nbf: int('nbf'),
    exp: int('exp'),
    jti: text('jti', JTI_RE) as string,
    holder_pk: text('holder_pk', HOLDER_PK_RE, true),
  };
  return { body, capabilities };
}

import { canonicalJson, parseJsonAst, type JsonNode } from '../integrity/index.js';
import type { Capability } from './capability.js';
import { bodyNode, readBody, type TokenBody } from './token-body.js';
import { tokenInvalid } from './token-error.js';

/** Every token starts with this. */
export const TOKEN_PREFIX = 'rye-cap-v1.';
/** Longest token accepted, in characters (a token is ASCII), its seal included. */
export const MAX_TOKEN_LENGTH = 64 * 1024;
/** A seal: a 64-byte Ed25519 signature, unpadded base64url (86 characters). */
export const SEAL_LENGTH = 86;
const SEAL_RE = /^[A-Za-z0-9_-]{86}$/;
/** Most blocks a token may have: the root block and 15 attenuations. */
export const MAX_TOKEN_BLOCKS = 16;

const SIGNATURE_RE = /^[A-Za-z0-9_-]{86}==$/;
const FINGERPRINT_RE = /^[0-9a-f]{16}$/;

/** One block: the signed body, its signature, and (block 0 only) the signer's fingerprint. */
export interface TokenBlock {
  readonly body: TokenBody;
  /** Padded base64url Ed25519 signature over the body (the JSON-signature form). */
  readonly sig: string;
  readonly fp?: string;
}

/** A decoded block with the exact JSON text that was signed and hashed. */
export interface DecodedBlock extends TokenBlock {
  /** `body.caps`, parsed. */
  readonly capabilities: readonly Capability[];
  /** Canonical JSON of `body`: what `sig` signs (through its SHA-256). */
  readonly bodyText: string;
  /** Canonical JSON of the whole block: what the next block's `prev` hashes. */
  readonly blockText: string;
}

/** The canonical JSON node of a block. Pure. */
export function blockNode(block: TokenBlock): JsonNode {
  const entries = [
    { key: 'body', value: bodyNode(block.body) as JsonNode },
    { key: 'sig', value: { type: 'string', value: block.sig } as JsonNode },
  ];
  if (block.fp !== undefined)
    entries.push({ key: 'fp', value: { type: 'string', value: block.fp } });
  return { type: 'object', entries };
}

/**
 * A bare chain: `rye-cap-v1.` + unpadded base64url of the canonical JSON
 * `{"blocks":[…]}`. It is presented only sealed (`sealToken`). Pure.
 */
export function encodeToken(blocks: readonly TokenBlock[]): string {
  const root: JsonNode = {
    type: 'object',
    entries: [{ key: 'blocks', value: { type: 'array', items: blocks.map(blockNode) } }],
  };
  return TOKEN_PREFIX + Buffer.from(canonicalJson(root), 'latin1').toString('base64url');
}

/**
 * Split a token into its chain (`rye-cap-v1.` + payload) and its seal, if it
 * has one: size first (before anything else), the prefix, at most one `.`
 * after it, and the seal in its one canonical form (86 base64url characters
 * of 64 bytes, no stray bits). Pure; untrusted input.
 *
 * @throws RyeError CAPABILITY_TOKEN_INVALID (reason `too_large` or `malformed`)
 */
export function splitToken(token: string): { chain: string; seal: string | undefined } {
  if (typeof token !== 'string') throw tokenInvalid('malformed', 'it is not a string');
  if (token.length > MAX_TOKEN_LENGTH)
    throw tokenInvalid('too_large', `it is longer than ${MAX_TOKEN_LENGTH} characters`);
  if (!token.startsWith(TOKEN_PREFIX))
    throw tokenInvalid('malformed', `it does not start with "${TOKEN_PREFIX}"`);
  const dot = token.indexOf('.', TOKEN_PREFIX.length);
  if (dot === -1) return { chain: token, seal: undefined };
  const seal = token.slice(dot + 1);
  if (!SEAL_RE.test(seal) || Buffer.from(seal, 'base64url').toString('base64url') !== seal)
    throw tokenInvalid('malformed', 'its seal is not 86 characters of canonical base64url');
  return { chain: token.slice(0, dot), seal };
}

/**
 * Decode the chain of a token, sealed or bare, checking nothing
 * cryptographic: size first (before any decoding), prefix, one canonical
 * encoding only (base64url without padding or stray bits, canonical JSON), at
 * most 16 blocks, each with exactly `body`, `sig` and, on block 0 only, `fp`.
 * Pure; untrusted input.
 *
 * @throws RyeError CAPABILITY_TOKEN_INVALID (reason `too_large`,
 *   `too_many_blocks` or `malformed`)
 */
export function decodeToken(token: string): DecodedBlock[] {
  const payload = splitToken(token).chain.slice(TOKEN_PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(payload))
    throw tokenInvalid('malformed', 'its payload is not unpadded base64url');
  const bytes = Buffer.from(payload, 'base64url');
  const text = bytes.toString('latin1');
  if (bytes.toString('base64url') !== payload || /[^\x20-\x7e]/.test(text))
    throw tokenInvalid('malformed', 'its payload is not canonical base64url of ASCII JSON');
  let root: JsonNode;
  try {
    root = parseJsonAst(text, 'capability token');
  } catch {
    throw tokenInvalid('malformed', 'its payload is not JSON');
  }
  const list =
    root.type === 'object' && root.entries.length === 1 && root.entries[0]?.key === 'blocks'
      ? root.entries[0].value
      : undefined;
  if (list?.type !== 'array') throw tokenInvalid('malformed', 'it must be {"blocks": [...]}');
  if (list.items.length === 0) throw tokenInvalid('malformed', 'it has no block');
  if (list.items.length > MAX_TOKEN_BLOCKS)
    throw tokenInvalid('too_many_blocks', `it has more than ${MAX_TOKEN_BLOCKS} blocks`);
  const blocks = list.items.map((node, index) => decodeBlock(node, index));
  // Canonical text, built from the blocks' own canonical texts (one
  // serialisation pass): one token, one spelling.
  if (`{"blocks":[${blocks.map((b) => b.blockText).join(',')}]}` !== text)
    throw tokenInvalid('malformed', 'its JSON is not canonical');
  return blocks;
}

function decodeBlock(node: JsonNode, index: number): DecodedBlock {
  const bad = (why: string): never => {
    throw tokenInvalid('malformed', why, index);
  };
  if (node.type !== 'object') return bad('a block is not an object');
  const keys = node.entries.map((e) => e.key).sort();
  const expected = index === 0 ? 'body,fp,sig' : 'body,sig';
  if (keys.join(',') !== expected) return bad(`a block must hold exactly ${expected}`);
  const value = (key: string): JsonNode | undefined =>
    node.entries.find((e) => e.key === key)?.value;
  const body = value('body');
  const sig = value('sig');
  const fp = value('fp');
  if (body === undefined) return bad('a block has no body');
  if (sig?.type !== 'string' || !SIGNATURE_RE.test(sig.value)) return bad('"sig" is malformed');
  if (fp !== undefined && (fp.type !== 'string' || !FINGERPRINT_RE.test(fp.value)))
    return bad('"fp" is malformed');
  const read = readBody(body, index);
  const bodyText = canonicalJson(body);
  const fpValue = fp?.type === 'string' ? fp.value : undefined;
  return {
    body: read.body,
    capabilities: read.capabilities,
    sig: sig.value,
    ...(fpValue === undefined ? {} : { fp: fpValue }),
    bodyText,
    blockText: blockTextOf(bodyText, sig.value, fpValue),
  };
}

/**
 * A block's canonical JSON from its body's: keys in order `body`, `fp`, `sig`;
 * `fp` and `sig` are checked ASCII without escapes, so they print as written.
 */
export function blockTextOf(bodyText: string, sig: string, fp: string | undefined): string {
  return `{"body":${bodyText},${fp === undefined ? '' : `"fp":"${fp}",`}"sig":"${sig}"}`;
}

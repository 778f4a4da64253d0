/**
 * A strict fast path for the `files:` section of a bundle manifest (seed 002,
 * "Layer 2"). The `yaml` package needs ~1 s for a 10,000-entry manifest; the
 * canonical layout {@link serializeManifest} writes is simple enough to read by
 * hand. Only that exact layout is read here: anything else, however harmless,
 * returns undefined and the caller parses the WHOLE text with the full YAML
 * parser, which stays the source of truth for every refusal.
 */
import type { ManifestEntry } from './types.js';

/**
 * A key YAML (1.2 core and 1.1) can only read as this very string: plain
 * scalar characters, no indicator first, and a `/` so it is never a bool,
 * null, number or timestamp. A leading `.` is allowed (`.ai/…`, real manifest
 * paths): `.inf`/`.nan`/`.5` have no `/`.
 */
const FAST_KEY_RE = /^[A-Za-z0-9_.][A-Za-z0-9_.@+/-]*$/;

/** Well under YAML's 1024-character limit for implicit keys (longer ones are written as `? key`). */
const MAX_FAST_KEY_LENGTH = 1000;

const HASH_RE = /^[0-9a-f]{64}$/;

/**
 * A hex string with `a`, `c`, `d` or `f` cannot be a number in YAML 1.2 core
 * or 1.1 (those only use digits, `_`, `.`, `e`, `b`, `o`, `x`, `inf`, `nan`),
 * so it is a string when written plain. All-digit (`123…`), float-like
 * (`1e5…`) or binary-like (`0b01…`) hashes are not: they must be quoted.
 */
const PLAIN_SAFE_HASH_RE = /[acdf]/;

const FILES_LINE = 'files:\n';
const TRUE_LINE = '    inline_signed: true';
const FALSE_LINE = '    inline_signed: false';

/** Whether `key` may be written and read as a plain `files` key by the fast path. */
export function isFastKey(key: unknown): key is string {
  return (
    typeof key === 'string' &&
    key.length <= MAX_FAST_KEY_LENGTH &&
    key.includes('/') &&
    FAST_KEY_RE.test(key)
  );
}

/** Whether `sha256` is 64 lowercase hex that YAML reads back as a string when written plain. */
export function isPlainSafeHash(sha256: unknown): sha256 is string {
  return typeof sha256 === 'string' && HASH_RE.test(sha256) && PLAIN_SAFE_HASH_RE.test(sha256);
}

/**
 * Split a manifest at its first line that is exactly `files:` and read what
 * follows, which must be only repeated groups of exactly
 * `␠␠<key>:` / `␠␠␠␠sha256: <hex>` (or `'<hex>'`) / `␠␠␠␠inline_signed: true|false`,
 * with {@link isFastKey} keys, at least one group, no duplicate key and at
 * most one final newline. Pure; never throws.
 *
 * @returns the text before the `files:` line (`header`) and the entries in
 *   text order; undefined on any deviation (parse the whole text with YAML).
 */
export function tryParseFilesFast(
  text: string,
): { header: string; files: Map<string, ManifestEntry> } | undefined {
  const at = text.startsWith(FILES_LINE) ? 0 : text.indexOf(`\n${FILES_LINE}`) + 1;
  if (at === 0 && !text.startsWith(FILES_LINE)) return undefined;
  // Read in place, line by line (a 10,000-entry manifest is 30,000 lines).
  const end = text.length;
  let pos = at + FILES_LINE.length;
  if (pos >= end) return undefined;
  const files = new Map<string, ManifestEntry>();
  while (pos < end) {
    // `␠␠<key>:`
    const keyEnd = text.indexOf('\n', pos);
    if (keyEnd === -1 || !text.startsWith('  ', pos) || text.charCodeAt(keyEnd - 1) !== COLON)
      return undefined;
    const key = text.slice(pos + 2, keyEnd - 1);
    if (!isFastKey(key) || files.has(key)) return undefined;
    // `␠␠␠␠sha256: <hex>` or `'<hex>'`
    let cursor = keyEnd + 1;
    if (!text.startsWith(HASH_PREFIX, cursor)) return undefined;
    cursor += HASH_PREFIX.length;
    const quoted = text.charCodeAt(cursor) === QUOTE;
    const hashAt = quoted ? cursor + 1 : cursor;
    if (!isHex64At(text, hashAt)) return undefined;
    const sha256 = text.slice(hashAt, hashAt + 64);
    cursor = hashAt + 64;
    if (quoted && text.charCodeAt(cursor++) !== QUOTE) return undefined;
    if (!quoted && !PLAIN_SAFE_HASH_RE.test(sha256)) return undefined;
    if (text.charCodeAt(cursor++) !== NEWLINE) return undefined;
    // `␠␠␠␠inline_signed: true|false`, then a newline or the end of the text
    const inlineSigned = text.startsWith(TRUE_LINE, cursor);
    if (!inlineSigned && !text.startsWith(FALSE_LINE, cursor)) return undefined;
    cursor += inlineSigned ? TRUE_LINE.length : FALSE_LINE.length;
    if (cursor < end && text.charCodeAt(cursor++) !== NEWLINE) return undefined;
    files.set(key, { sha256, inlineSigned });
    pos = cursor;
  }
  return { header: text.slice(0, at), files };
}

const COLON = 0x3a;
const QUOTE = 0x27;
const NEWLINE = 0x0a;
const HASH_PREFIX = '    sha256: ';

/** True when `text` holds 64 lowercase hex characters from `at`. */
function isHex64At(text: string, at: number): boolean {
  if (at + 64 > text.length) return false;
  for (let i = at; i < at + 64; i += 1) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/**
 * The `files:` section in the fast layout (the exact bytes `yaml` writes for
 * it), or undefined when some entry does not fit it (write the whole document
 * with `yaml`). `rows` must already be sorted.
 */
export function writeFilesFast(
  rows: readonly (readonly [path: string, entry: ManifestEntry])[],
): string | undefined {
  if (rows.length === 0) return undefined;
  const out: string[] = [FILES_LINE];
  for (const [path, { sha256, inlineSigned }] of rows) {
    if (!isFastKey(path) || !isPlainSafeHash(sha256) || typeof inlineSigned !== 'boolean')
      return undefined;
    out.push(`  ${path}:\n    sha256: ${sha256}\n    inline_signed: ${inlineSigned}\n`);
  }
  return out.join('');
}

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
 * A key YAML (1.2 core and 1.1) can only read as this very string and that
 * passes the manifest path rule (manifest-path.ts) as it is: plain scalar
 * characters (`[A-Za-z0-9_.@+-]`), none of `@+-` first, at least two
 * segments joined by single `/`, none of them empty or dots alone (so never a
 * bool, null, number or timestamp, never `.` or `..`). A leading `.` is
 * allowed (`.ai/…`, real manifest paths): `.inf`/`.nan`/`.5` have no `/`.
 * Each segment's leading dots come first, then a character that is not one,
 * and no segment character is a `/` or `:`: where each part ends is never in
 * doubt, so a match, or a failed one, takes time linear in the key.
 */
const FAST_KEY = String.raw`(?:\w|\.+[\w@+-])[\w.@+-]*(?:\/\.*[\w@+-][\w.@+-]*)+`;
const FAST_KEY_RE = new RegExp(`^${FAST_KEY}$`);

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
const PLAIN_SAFE_HASH = '(?=[0-9be]*[acdf])[0-9a-f]{64}';

const FILES_LINE = 'files:\n';
const KEY_INDENT = '  ';
const HASH_PREFIX = '    sha256: ';
const FLAG_PREFIX = '\n    inline_signed: ';

/**
 * One whole group from its first character (sticky): the key line, the hash
 * line (plain-safe hex, or any hex single-quoted), the flag line, and a
 * newline or the end of the text. One native match per group: reading it
 * character by character measured 2–3× slower on a process's first run,
 * before V8 optimises the loop.
 */
const GROUP_RE = new RegExp(
  `${KEY_INDENT}${FAST_KEY}:\n${HASH_PREFIX}(?:${PLAIN_SAFE_HASH}|'[0-9a-f]{64}')${FLAG_PREFIX}(?:true|false)(?:\n|$)`,
  'y',
);

/**
 * Whether `key` may be written and read as a plain `files` key by the fast
 * path: a string that YAML reads as itself and that passes the manifest path
 * rule.
 */
export function isFastKey(key: unknown): key is string {
  return typeof key === 'string' && key.length <= MAX_FAST_KEY_LENGTH && FAST_KEY_RE.test(key);
}

/** Whether `sha256` is 64 lowercase hex that YAML reads back as a string when written plain. */
export function isPlainSafeHash(sha256: unknown): sha256 is string {
  return typeof sha256 === 'string' && HASH_RE.test(sha256) && PLAIN_SAFE_HASH_RE.test(sha256);
}

/**
 * Split a manifest at its first line that is exactly `files:` and read what
 * follows, which must be only repeated groups of exactly
 * `␠␠<key>:` / `␠␠␠␠sha256: <hex>` (or `'<hex>'`) / `␠␠␠␠inline_signed: true|false`,
 * with {@link isFastKey} keys in strictly increasing order (the order rye
 * writes: so no key is listed twice and none needs sorting), at least one
 * group and at most one final newline. Every key read here passes the
 * manifest path rule and every entry is what the full reader makes of it,
 * so the caller takes the map as it is. Pure; never throws.
 *
 * @returns the text before the `files:` line (`header`) and the entries in
 *   text order; undefined on any deviation (parse the whole text with YAML).
 */
export function tryParseFilesFast(
  text: string,
): { header: string; files: Map<string, ManifestEntry> } | undefined {
  const at = text.startsWith(FILES_LINE) ? 0 : text.indexOf(`\n${FILES_LINE}`) + 1;
  if (at === 0 && !text.startsWith(FILES_LINE)) return undefined;
  // Read in place (a 10,000-entry manifest is 30,000 lines).
  const end = text.length;
  let pos = at + FILES_LINE.length;
  if (pos >= end) return undefined;
  const files = new Map<string, ManifestEntry>();
  let previous = '';
  while (pos < end) {
    GROUP_RE.lastIndex = pos;
    if (!GROUP_RE.test(text)) return undefined;
    const next = GROUP_RE.lastIndex;
    // The key ends at the first `:` (a fast key has none).
    const keyEnd = text.indexOf(':', pos);
    if (keyEnd - pos - KEY_INDENT.length > MAX_FAST_KEY_LENGTH) return undefined;
    const key = text.slice(pos + KEY_INDENT.length, keyEnd);
    // ASCII keys: `<` is code-point order, the order of comparePaths.
    if (key <= previous) return undefined;
    const hashAt = keyEnd + 2 + HASH_PREFIX.length;
    const quoted = text.charCodeAt(hashAt) === QUOTE;
    const sha256 = quoted ? text.slice(hashAt + 1, hashAt + 65) : text.slice(hashAt, hashAt + 64);
    // `true` or `false`: which one is told by the letter after the prefix.
    const flagAt = hashAt + (quoted ? 66 : 64) + FLAG_PREFIX.length;
    files.set(key, { sha256, inlineSigned: text.charCodeAt(flagAt) === LETTER_T });
    previous = key;
    pos = next;
  }
  return { header: text.slice(0, at), files };
}

const QUOTE = 0x27;
const LETTER_T = 0x74;

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

import { RyeError } from '../errors/index.js';
import { compileGlob } from '../platform/index.js';
import { ITEM_TYPES, type ItemType } from './signature-formats.js';

/**
 * What a trusted key may vouch for (trust TOML `scope` and `item_types`).
 * `bundle` stands for a bundle manifest, whose id is the bundle id.
 */
export const SCOPE_ITEM_TYPES: readonly ScopeItemType[] = [...ITEM_TYPES, 'bundle'];
export type ScopeItemType = ItemType | 'bundle';

/**
 * One restriction of a key: id patterns and item types, each null when that
 * field is absent (unrestricted on that axis). A key may carry several (the
 * same fingerprint in two trust stores): every one must cover the subject.
 */
export interface KeyScope {
  readonly ids: readonly string[] | null;
  readonly itemTypes: readonly ScopeItemType[] | null;
}

/** A {@link KeyScope} as JSON output and trust TOML spell it: `{ids, item_types}`. */
export interface KeyScopeJson {
  readonly ids: readonly string[] | null;
  readonly item_types: readonly ScopeItemType[] | null;
}

/** The JSON form of a scope (docs/json-output.md). Pure. */
export function keyScopeJson(scope: KeyScope): KeyScopeJson {
  return { ids: scope.ids, item_types: scope.itemTypes };
}

/** The item a signature is checked for: the id and type the bytes will act as. */
export interface VerifySubject {
  readonly itemId: string;
  readonly itemType: ScopeItemType;
}

/** Longest pattern accepted (item ids are at most 512 characters). */
const MAX_PATTERN_LENGTH = 512;
/** An id segment, as `problemWith` in items/item-id.ts accepts it. */
const SEGMENT_RE = /^[A-Za-z0-9_][A-Za-z0-9_+@-]*$/;

/**
 * Check one scope pattern. Three forms, the subset of `src/items/glob.ts`
 * patterns whose meaning is plain: an exact id (`tools/x`), `prefix/*` (ids
 * exactly one segment below `prefix`) and `prefix/**` (every id below
 * `prefix`, at any depth). A lone `*` is every top-level id, a lone `**`
 * every id. A wildcard anywhere else, `?`, `..` and empty segments are refused.
 *
 * @returns the reason the pattern is refused, or undefined when it is valid.
 */
export function scopePatternProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return 'it is empty';
  if (pattern.length > MAX_PATTERN_LENGTH)
    return `it is longer than ${MAX_PATTERN_LENGTH} characters`;
  const segments = pattern.split('/');
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1;
    if (last && (segment === '*' || segment === '**')) continue;
    if (segment.includes('*') || segment.includes('?'))
      return 'a wildcard may only be the whole last segment (`prefix/*` or `prefix/**`)';
    if (!SEGMENT_RE.test(segment) || segment.includes('..'))
      return `segment "${segment.slice(0, 40)}" is not an item id segment`;
  }
  return undefined;
}

/**
 * True when `pattern` (already checked by {@link scopePatternProblem}) covers
 * `itemId`: matched by the one glob compiler (platform's `compileGlob`), whose
 * `*` and `**` mean here what they mean in id globs.
 */
export function scopePatternCovers(pattern: string, itemId: string): boolean {
  let matches = compiledScopes.get(pattern);
  if (matches === undefined) {
    // Bounded: patterns come from trust files, and a store may hold many.
    if (compiledScopes.size >= MAX_COMPILED_SCOPES) compiledScopes.clear();
    matches = compileGlob(pattern);
    compiledScopes.set(pattern, matches);
  }
  return matches(itemId);
}

const MAX_COMPILED_SCOPES = 1024;
const compiledScopes = new Map<string, (itemId: string) => boolean>();

/**
 * True when every restriction covers the subject. A key without restrictions
 * covers everything; a restricted key covers nothing when the caller did not
 * say which item the bytes are for (fail closed). Pure.
 */
export function scopesCover(
  scopes: readonly KeyScope[] | undefined,
  subject: VerifySubject | null | undefined,
): boolean {
  if (scopes === undefined || scopes.length === 0) return true;
  if (subject === null || subject === undefined) return false;
  return scopes.every(
    (scope) =>
      (scope.itemTypes === null || scope.itemTypes.includes(subject.itemType)) &&
      (scope.ids === null || scope.ids.some((p) => scopePatternCovers(p, subject.itemId))),
  );
}

/** `ids apps/*, tools/x; types tool`, joined with ` and ` for several restrictions. */
export function describeScopes(scopes: readonly KeyScope[] | undefined): string {
  if (scopes === undefined || scopes.length === 0) return 'everything';
  return scopes
    .map((s) =>
      [
        s.ids === null ? null : `ids ${s.ids.join(', ')}`,
        s.itemTypes === null ? null : `types ${s.itemTypes.join(', ')}`,
      ]
        .filter((part) => part !== null)
        .join('; '),
    )
    .join(' and ');
}

/**
 * Build a restriction from the raw `scope` and `item_types` values of a trust
 * document (or command-line options): each absent, or a non-empty list of
 * valid patterns / known types. Returns undefined when both are absent.
 * Duplicates are dropped; order is kept.
 *
 * @throws RyeError TRUST_FILE_INVALID naming `source` and the bad value.
 */
export function parseKeyScope(
  scope: unknown,
  itemTypes: unknown,
  source: string,
): KeyScope | undefined {
  if (scope === undefined && itemTypes === undefined) return undefined;
  const ids = scope === undefined ? null : stringList(scope, 'scope', source);
  for (const pattern of ids ?? []) {
    const why = scopePatternProblem(pattern);
    if (why !== undefined) throw invalid(source, `scope pattern "${pattern}": ${why}`);
  }
  const types = itemTypes === undefined ? null : stringList(itemTypes, 'item_types', source);
  for (const type of types ?? []) {
    if (!(SCOPE_ITEM_TYPES as readonly string[]).includes(type))
      throw invalid(source, `item_types "${type}": use ${SCOPE_ITEM_TYPES.join(', ')}`);
  }
  return { ids, itemTypes: types as ScopeItemType[] | null };
}

function stringList(value: unknown, field: string, source: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw invalid(source, `${field} must be a list of strings`);
  // An empty list would read as "nothing" to one person and "everything" to another.
  if (value.length === 0) throw invalid(source, `${field} is empty (leave it out for no limit)`);
  return [...new Set(value as string[])];
}

function invalid(source: string, why: string): RyeError {
  return new RyeError('TRUST_FILE_INVALID', `Cannot use trusted key ${source}: ${why}`, {
    source,
  });
}

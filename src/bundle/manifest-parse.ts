/**
 * Parse a bundle manifest (seed 002, "Layer 2"). UNTRUSTED INPUT: the text may
 * come from a registry or a pulled archive, so everything is checked before a
 * caller can open or write any path the manifest names.
 */
import * as yaml from 'yaml';
import { isAlias, isMap, isScalar, LineCounter, visit, type Document } from 'yaml';
import { RyeError, isRyeError } from '../errors/index.js';
import {
  ITEM_TYPES,
  isSemver,
  parseItemId,
  parseYamlDocumentCapped,
  type ItemType,
  type YamlCaps,
} from '../items/index.js';
import {
  FieldReader,
  fieldOf,
  fieldPath,
  type FieldProblem,
  type StringRule,
} from '../platform/index.js';
import { tryParseFilesFast } from './manifest-fast.js';
import { comparePaths, manifestPathProblem } from './manifest-path.js';
import type { BundleInfo, BundleManifest, ManifestEntry } from './types.js';

/** Largest manifest accepted, in UTF-8 bytes (a 100k-file bundle is ~15 MB). */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/** Issues kept in `details.issues`; the rest are only counted. */
const MAX_ISSUES = 100;
const SHA256_RE = /^[0-9a-f]{64}$/;

/**
 * YAML work limits for the full parser. Every file entry carries a 64-character
 * hash, so a real manifest has about one token per 6 bytes; one per 4 (plus a
 * margin for small files) refuses a text of tiny tokens after a quarter of the
 * library's work. A manifest nests 3 levels; 16 leaves room for any layout.
 */
function yamlCaps(text: string): YamlCaps {
  return { maxLexemes: 100_000 + Math.ceil(text.length / 4), maxDepth: 16 };
}

class Issues {
  readonly list: string[] = [];
  count = 0;
  /** Platform's FieldReader, its problems worded as this file words them. */
  readonly read = new FieldReader((field, problem) =>
    this.add(() => `${field}: ${wording(problem)}`),
  );
  /** `issue` may be a function, so an issue past the kept ones costs nothing to word. */
  add(issue: string | (() => string)): void {
    this.count += 1;
    if (this.list.length < MAX_ISSUES) this.list.push(typeof issue === 'string' ? issue : issue());
  }
}

/**
 * Parse and check a manifest. The leading `# rye:signed:` line, a YAML
 * comment, is ignored here (the integrity layer checks it). Refuses, with every
 * issue collected: text over {@link MAX_MANIFEST_BYTES}; YAML syntax errors,
 * duplicate keys, several documents, tags, anchors and aliases (no alias is
 * ever expanded); a bad `bundle` block; any file path failing
 * {@link manifestPathProblem}, listed twice (also across the NFC/NFD spellings
 * of one name) or without a 64-lowercase-hex `sha256`. `files` may be the map
 * form or the legacy list form `[{path, sha256, inline_signed}]`; no entry's
 * hash is ever dropped. Unknown keys (Python's `bundle.type`) are ignored.
 *
 * @returns the manifest with `files` sorted by path in code-point order.
 * @throws RyeError BUNDLE_MANIFEST_INVALID with `details: {source, issues, issueCount}`.
 */
export function parseManifest(text: string, source: string): BundleManifest {
  return parseManifestWith(text, source);
}

export interface ParseManifestOptions {
  /** Try the strict fast path for `files` first (default true); false: full YAML only. */
  readonly fast?: boolean;
  /** Told which path read the text (tests use it). */
  readonly onPath?: (path: 'fast' | 'full') => void;
}

/**
 * {@link parseManifest} with options. Accepts and refuses exactly what
 * parseManifest does, with the same issues: the fast path only ever reads the
 * canonical layout, and anything it is unsure of goes to the full parser.
 */
export function parseManifestWith(
  text: string,
  source: string,
  options: ParseManifestOptions = {},
): BundleManifest {
  const issues = new Issues();
  const bytes = text.length > MAX_MANIFEST_BYTES ? text.length : Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_MANIFEST_BYTES) {
    issues.add(`it is at least ${bytes} bytes, over the cap of ${MAX_MANIFEST_BYTES}`);
    return refuse(source, issues);
  }
  const fast = options.fast === false ? undefined : readFast(text);
  options.onPath?.(fast === undefined ? 'full' : 'fast');
  const root = fast === undefined ? readYaml(text, issues) : fast.root;
  if (issues.count > 0) return refuse(source, issues);
  if (!(root instanceof Map)) {
    issues.add('the top level must be a map with "bundle" and "files"');
    return refuse(source, issues);
  }
  const bundle = bundleOf(root.get('bundle'), issues);
  const files =
    fast === undefined ? filesOf(root.get('files'), issues) : fastFilesOf(fast.files, issues);
  if (issues.count > 0) return refuse(source, issues);
  return { bundle, files };
}

/**
 * The fast path: `files` read by hand, the header (text before `files:`) with
 * YAML as `header + "files:\n"` — the same bytes as the full text up to the
 * `files:` line. Used only when that header parses without any issue, as a
 * block map whose last key is that very `files:` line with no value: then the
 * full parse reads the header identically and `files` as the groups read here.
 * Otherwise undefined: the caller parses the whole text (and its refusals).
 */
function readFast(
  text: string,
): { root: Map<unknown, unknown>; files: Map<string, ManifestEntry> } | undefined {
  const split = tryParseFilesFast(text);
  if (split === undefined) return undefined;
  const { header } = split;
  // Directives (`%YAML 1.1`) could change how the files section is typed.
  if (/^%/m.test(header)) return undefined;
  const headerText = `${header}files:\n`;
  const issues = new Issues();
  const doc = readYamlDocument(headerText, issues);
  if (doc === undefined || issues.count > 0) return undefined;
  const contents = doc.contents;
  if (!isMap(contents) || contents.flow === true) return undefined;
  const last = contents.items[contents.items.length - 1];
  if (last === undefined || !isScalar(last.key) || last.key.value !== 'files') return undefined;
  if (last.key.range?.[0] !== header.length || last.key.type !== 'PLAIN') return undefined;
  if (!(last.value === null || (isScalar(last.value) && last.value.value === null)))
    return undefined;
  let root: unknown;
  try {
    root = doc.toJS({ mapAsMap: true, maxAliasCount: 0 });
  } catch {
    return undefined;
  }
  if (!(root instanceof Map) || root.get('files') !== null) return undefined;
  return { root, files: split.files };
}

/** YAML → JS (maps as `Map`, so no key is coerced to a string), structure checked first. */
function readYaml(text: string, issues: Issues): unknown {
  const doc = readYamlDocument(text, issues);
  if (doc === undefined || issues.count > 0) return undefined;
  try {
    return doc.toJS({ mapAsMap: true, maxAliasCount: 0 });
  } catch (error) {
    issues.add(`the YAML cannot be read: ${messageOf(error)}`);
    return undefined;
  }
}

/** The parsed document, its errors, anchors, aliases, tags and duplicate keys recorded as issues. */
function readYamlDocument(text: string, issues: Issues): Document.Parsed | undefined {
  const lines = new LineCounter();
  const at = (node: { range?: unknown }): string => {
    const pos = lines.linePos(Array.isArray(node.range) ? Number(node.range[0]) : 0);
    return `line ${pos.line}, column ${pos.col}`;
  };
  try {
    // uniqueKeys is checked below with a Set: the library's check is quadratic
    // in a map's size, a denial of service on a 16 MiB manifest.
    // Tokens and nesting are capped while the text is tokenised, before the
    // library's recursive composer runs.
    const doc = parseYamlDocumentCapped(yaml, text, 'the manifest', yamlCaps(text), {
      schema: 'core',
      uniqueKeys: false,
      prettyErrors: false,
      lineCounter: lines,
    });
    for (const e of [...doc.errors, ...doc.warnings])
      issues.add(() => `line ${lines.linePos(e.pos[0]).line}: ${e.message}`);
    // A manifest never needs anchors, aliases or tags: refusing them outright
    // defeats alias-expansion bombs and type confusion (`!!js/function`, `!foo`).
    visit(doc, {
      Node(_key, node) {
        if (isAlias(node))
          issues.add(() => `${at(node)}: YAML alias *${node.source} is not allowed`);
        if (node.anchor !== undefined)
          issues.add(() => `${at(node)}: YAML anchor &${node.anchor} is not allowed`);
        if (node.tag !== undefined)
          issues.add(() => `${at(node)}: YAML tag ${node.tag} is not allowed`);
        // Same rule as `uniqueKeys: true`, in linear time; complex keys refused.
        const keys = new Set<unknown>();
        for (const { key } of isMap(node) ? node.items : []) {
          if (!isScalar(key)) issues.add(() => `${at(node)}: map keys must be plain scalars`);
          else if (keys.has(key.value))
            issues.add(() => `${at(key)}: duplicate key ${show(key.value)}`);
          else keys.add(key.value);
        }
      },
    });
    return doc;
  } catch (error) {
    if (isRyeError(error) && error.code === 'PARSE_UNSAFE_CONTENT') {
      const { line, reason } = error.details as { line?: number; reason?: string };
      issues.add(`line ${line ?? 1}: ${reason ?? error.message}`);
      return undefined;
    }
    // Any other parser failure (the stack, say) is treated as hostile input too.
    issues.add(`the YAML cannot be read: ${messageOf(error)}`);
    return undefined;
  }
}

function bundleOf(value: unknown, issues: Issues): BundleInfo {
  const { read } = issues;
  // Not a map: every field below is then reported missing, as it is.
  const bundle = read.map(value, 'bundle') ?? new Map<unknown, unknown>();
  // A field set to null is as missing as an absent one; only `description` may be either.
  const text = (key: string, rule: StringRule = {}, optional = false): string => {
    const value = read.string(bundle, key, 'bundle', { ...rule, absent: 'nullish' });
    if (value === null && !optional)
      read.report(fieldPath('bundle', key), { kind: 'missing', expected: 'string' });
    return value ?? '';
  };
  return {
    id: text('id', { check: itemIdProblem }),
    version: text('version', {
      check: (v) => (isSemver(v) ? undefined : `${show(v)} is not a semantic version`),
    }),
    createdAt: text('created_at'),
    entrypoint: entrypointOf(fieldOf(bundle, 'entrypoint'), issues),
    description: text('description', {}, true),
    includes: includesOf(fieldOf(bundle, 'includes'), issues),
  };
}

function entrypointOf(value: unknown, issues: Issues): BundleInfo['entrypoint'] {
  // Python writes `entrypoint: ''` for a bundle without one.
  if (value === undefined || value === null || value === '') return null;
  const where = 'bundle.entrypoint';
  const entry = issues.read.map(value, where, '{item_type, item_id}, "" or null');
  if (entry === undefined) return null;
  const itemType = issues.read.oneOf(entry, 'item_type', where, ITEM_TYPES);
  const itemId = fieldOf(entry, 'item_id');
  if (typeof itemId !== 'string') issues.add(`${where}.item_id: must be a string`);
  else {
    const why = itemIdProblem(itemId);
    if (why !== undefined) issues.add(`${where}.item_id: ${why}`);
  }
  return { itemType: itemType as ItemType, itemId: String(itemId) };
}

function includesOf(value: unknown, issues: Issues): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    issues.add('bundle.includes: must be a list of folder paths');
    return [];
  }
  const seen = new Map<string, string>();
  return value.map((folder: unknown, i) => {
    const path = pathIssue(`bundle.includes[${i}]`, folder, issues);
    if (path !== undefined) firstSpelling(`bundle.includes[${i}]`, path, seen, issues);
    return path ?? '';
  });
}

/**
 * Where a `files` row is, for an issue: a string, or null for a row of the
 * map form (`files["<path>"]`, worded only when an issue needs it).
 */
type Where = string | null;

// eslint-disable-next-line no-control-regex
const ASCII_RE = /^[\u0000-\u007f]*$/;

function whereOf(where: Where, path: unknown): string {
  return where ?? `files[${show(path)}]`;
}

/** Records a path seen before, comparing NFC forms (macOS stores one name for both). */
function firstSpelling(where: Where, path: string, seen: Map<string, string>, issues: Issues) {
  // ASCII text is its own NFC form (and most paths are ASCII).
  const nfc = ASCII_RE.test(path) ? path : path.normalize('NFC');
  const first = seen.get(nfc);
  if (first !== undefined)
    issues.add(() => `${whereOf(where, path)}: "${path}" is listed twice (first as "${first}")`);
  else seen.set(nfc, path);
}

function filesOf(value: unknown, issues: Issues): Map<string, ManifestEntry> {
  const rows: [where: Where, path: unknown, entry: unknown][] = [];
  if (value instanceof Map) {
    for (const [path, entry] of value) rows.push([null, path, entry]);
  } else if (Array.isArray(value)) {
    // Legacy list form: each element must carry its own hash — a bare path
    // string is refused rather than silently losing verification (seed 000).
    value.forEach((entry: unknown, i) => {
      const map = issues.read.map(entry, `files[${i}]`, '{path, sha256, inline_signed}');
      if (map !== undefined) rows.push([`files[${i}]`, map.get('path'), map]);
    });
  } else {
    issues.add('files: must be a map of path → {sha256, inline_signed} (or the legacy list)');
  }
  return checkedFiles(rows, issues, (where, path, raw) =>
    entryOf(whereOf(where, path), raw, issues),
  );
}

/**
 * The fast path's `files` (tryParseFilesFast): each entry's hash and flag are
 * already what entryOf requires; the paths get every check YAML rows get.
 */
function fastFilesOf(
  files: ReadonlyMap<string, ManifestEntry>,
  issues: Issues,
): Map<string, ManifestEntry> {
  const rows: [Where, string, ManifestEntry][] = [];
  for (const [path, entry] of files) rows.push([null, path, entry]);
  return checkedFiles(rows, issues, (_where, _path, entry) => entry);
}

/**
 * The rows whose path passes the path rule and whose entry reads (`entryAt`,
 * after the path, so issues come row by row), each path listed once
 * (NFC-insensitive), in code-point order of path.
 */
function checkedFiles<E>(
  rows: readonly (readonly [where: Where, path: unknown, entry: E])[],
  issues: Issues,
  entryAt: (where: Where, path: unknown, entry: E) => ManifestEntry | undefined,
): Map<string, ManifestEntry> {
  const seen = new Map<string, string>();
  const entries: [string, ManifestEntry][] = [];
  for (const [where, rawPath, rawEntry] of rows) {
    const path = pathIssue(where, rawPath, issues);
    const entry = entryAt(where, rawPath, rawEntry);
    if (path === undefined || entry === undefined) continue;
    firstSpelling(where, path, seen, issues);
    entries.push([path, entry]);
  }
  // A manifest rye wrote is in order already: checking costs one pass, sorting many.
  for (let i = 1; i < entries.length; i += 1) {
    if (comparePaths(entries[i - 1]?.[0] ?? '', entries[i]?.[0] ?? '') > 0) {
      entries.sort((a, b) => comparePaths(a[0], b[0]));
      break;
    }
  }
  return new Map(entries);
}

function entryOf(where: string, value: unknown, issues: Issues): ManifestEntry | undefined {
  const entry = issues.read.map(value, where, '{sha256, inline_signed}');
  if (entry === undefined) return undefined;
  const sha256 = issues.read.string(entry, 'sha256', where, SHA256_RULE);
  const inlineSigned = issues.read.boolean(entry, 'inline_signed', where, INLINE_RULE);
  if (typeof sha256 !== 'string' || inlineSigned === undefined) return undefined;
  return { sha256, inlineSigned };
}

const HEX64 = '64 lowercase hex characters';
// Built once: a 100k-file manifest reads these rules 100k times.
const SHA256_RULE: StringRule = {
  label: HEX64,
  check: (hash) => (SHA256_RE.test(hash) ? undefined : `${show(hash)} is not ${HEX64}`),
};
const INLINE_RULE = { fallback: false } as const;

/** This file's words for a FieldReader problem (after `<field>: `). */
function wording(problem: FieldProblem): string {
  switch (problem.kind) {
    case 'missing':
    case 'type':
      if (problem.expected === 'map')
        return `must be a map${problem.label === undefined ? '' : ` ${problem.label}`}`;
      return `${show('actual' in problem ? problem.actual : undefined)} is not ${problem.label ?? (problem.expected === 'boolean' ? 'true or false' : 'a string')}`;
    case 'not_one_of':
      return `${show(problem.actual)} is not one of ${String(problem.allowed)}`;
    case 'invalid':
      return problem.why;
    default:
      return problem.kind;
  }
}

/** The path when it is a string passing the manifest path rule; else records an issue. */
function pathIssue(where: Where, value: unknown, issues: Issues): string | undefined {
  if (typeof value !== 'string') {
    issues.add(() => `${whereOf(where, value)}: path ${show(value)} is not a string (quote it)`);
    return undefined;
  }
  const why = manifestPathProblem(value);
  if (why === undefined) return value;
  issues.add(() => `${whereOf(where, value)}: path ${show(value)} is refused: ${why}`);
  return undefined;
}

/** Why `id` is not an item id (parseItemId's message), or undefined. */
function itemIdProblem(id: string): string | undefined {
  try {
    parseItemId(id);
    return undefined;
  } catch (error) {
    return messageOf(error);
  }
}

// Not platform's messageOf: that one prefixes an error's `code`, and a RyeError
// (ITEM_ID_INVALID) or a YAMLError has one; issues quote the message alone.
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A short, printable rendering of an untrusted value for messages. */
function show(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function refuse(source: string, issues: Issues): never {
  const more = issues.count > 1 ? ` (and ${issues.count - 1} more)` : '';
  throw new RyeError(
    'BUNDLE_MANIFEST_INVALID',
    `Cannot read bundle manifest ${source}: ${issues.list[0] ?? 'invalid'}${more}`,
    { source, issues: issues.list, issueCount: issues.count },
  );
}

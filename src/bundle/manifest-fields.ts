/**
 * The checks of a bundle manifest's fields: the `bundle` block, whichever
 * reader read the text (manifest-parse.ts), and every `files` row the full
 * YAML reader read: its path (the path rule, listed once across NFC/NFD
 * spellings) and entry (64 lowercase hex, a boolean flag). The `files:` fast
 * path reads only rows that pass these (manifest-fast.ts). Each problem is an
 * issue, worded here and collected in {@link Issues}.
 */
import { ITEM_TYPES, isSemver, parseItemId, type ItemType } from '../items/index.js';
import {
  FieldReader,
  fieldOf,
  fieldPath,
  type FieldProblem,
  type StringRule,
} from '../platform/index.js';
import { comparePaths, manifestPathProblem } from './manifest-path.js';
import type { BundleInfo, ManifestEntry } from './types.js';

/** Issues kept in `details.issues`; the rest are only counted. */
const MAX_ISSUES = 100;
const SHA256_RE = /^[0-9a-f]{64}$/;

/** The issues found in one manifest: the first {@link MAX_ISSUES} worded, all counted. */
export class Issues {
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

export function bundleOf(value: unknown, issues: Issues): BundleInfo {
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

export function filesOf(value: unknown, issues: Issues): Map<string, ManifestEntry> {
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
    const [previous] = entries[i - 1] as [string, ManifestEntry];
    const [path] = entries[i] as [string, ManifestEntry];
    if (comparePaths(previous, path) > 0) {
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
    default:
      // `invalid`: the reads here set no rule that reports another kind (no caps, no non-empty).
      return (problem as Extract<FieldProblem, { kind: 'invalid' }>).why;
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
// Its callers pass what parseItemId and the YAML library throw: Errors.
export function messageOf(error: unknown): string {
  return (error as Error).message;
}

/** A short, printable rendering of an untrusted value for messages. */
export function show(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

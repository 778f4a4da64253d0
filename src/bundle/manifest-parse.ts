/**
 * Parse a bundle manifest (seed 002, "Layer 2"). UNTRUSTED INPUT: the text may
 * come from a registry or a pulled archive, so everything is checked before a
 * caller can open or write any path the manifest names.
 */
import * as yaml from 'yaml';
import { isAlias, isMap, isScalar, LineCounter, visit, type Document } from 'yaml';
import { RyeError, isRyeError } from '../errors/index.js';
import { parseYamlDocumentCapped, type YamlCaps } from '../items/index.js';
import { tryParseFilesFast } from './manifest-fast.js';
import { Issues, bundleOf, filesOf, messageOf, show } from './manifest-fields.js';
import type { BundleManifest, ManifestEntry } from './types.js';

/** Largest manifest accepted, in UTF-8 bytes (a 100k-file bundle is ~15 MB). */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/**
 * YAML work limits for the full parser. Every file entry carries a 64-character
 * hash, so a real manifest has about one token per 6 bytes; one per 4 (plus a
 * margin for small files) refuses a text of tiny tokens after a quarter of the
 * library's work. A manifest nests 3 levels; 16 leaves room for any layout.
 */
function yamlCaps(text: string): YamlCaps {
  return { maxLexemes: 100_000 + Math.ceil(text.length / 4), maxDepth: 16 };
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
  // The fast path's entries already passed every check filesOf makes (manifest-fast.ts).
  const files = fast === undefined ? filesOf(root.get('files'), issues) : fast.files;
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
  // Defence in depth: a header that parsed without an issue (no anchor, alias,
  // tag or duplicate key, no YAML error) always passes the checks below; they
  // stay so that no change in the YAML library lets the fast path read a
  // manifest otherwise than the full parser does.
  /* v8 ignore start */
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
  /* v8 ignore stop */
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
    // Every node of a parsed document has its range.
    const pos = lines.linePos((node.range as [number, number, number])[0]);
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
    // Defensive: the capped reader throws only PARSE_UNSAFE_CONTENT, with its line and reason.
    /* v8 ignore else */
    if (isRyeError(error) && error.code === 'PARSE_UNSAFE_CONTENT') {
      const { line, reason } = error.details as { line: number; reason: string };
      issues.add(`line ${line}: ${reason}`);
      return undefined;
    }
    // Any other parser failure (the stack, say) is treated as hostile input too.
    issues.add(`the YAML cannot be read: ${messageOf(error)}`);
    return undefined;
  }
}

function refuse(source: string, issues: Issues): never {
  const more = issues.count > 1 ? ` (and ${issues.count - 1} more)` : '';
  throw new RyeError(
    'BUNDLE_MANIFEST_INVALID',
    // Refused only with an issue, and the first issues are kept.
    `Cannot read bundle manifest ${source}: ${issues.list[0] as string}${more}`,
    { source, issues: issues.list, issueCount: issues.count },
  );
}

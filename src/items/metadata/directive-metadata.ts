import { readDirectiveProgram } from '../directive/program.js';
import { parseDirectiveXml, type XmlElement } from './safe-xml.js';
import type { DirectiveMetadata } from './types.js';

export { parseDirectiveXml, type XmlElement } from './safe-xml.js';

export type DirectivePermissions = Readonly<
  Record<string, Readonly<Record<string, readonly string[]>>>
>;

/** One declared input (`sections.inputs`). */
export interface DirectiveInput {
  readonly name: string | undefined;
  readonly type: string | undefined;
  readonly required: boolean;
  readonly default?: string;
  readonly description: string;
}

/** An execute/load/search/sign element inside a step (`sections.process[i].actions`). */
export interface DirectiveAction {
  readonly verb: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly params: Readonly<Record<string, string>>;
}

/** One `<step>` of `sections.process`. */
export interface DirectiveStep {
  readonly name: string | undefined;
  readonly description: string | undefined;
  readonly attributes: Readonly<Record<string, string>>;
  readonly actions: readonly DirectiveAction[];
}

/** One `<hook>` of `sections.hooks`. */
export interface DirectiveHook {
  readonly attributes: Readonly<Record<string, string>>;
  readonly directive: string | undefined;
  readonly inputs: Readonly<Record<string, string>>;
}

/** One entry of `sections.outputs`: an `<output name>` or a `<success>`/`<failure>` text. */
export interface DirectiveOutput {
  readonly name: string;
  readonly description: string;
}

const ACTION_VERBS = new Set(['execute', 'load', 'search', 'sign']);
const NAMED_FIELDS = new Set(['description', 'category', 'author']);

/**
 * Read a directive's metadata from its Markdown text without executing anything.
 * `sections` holds model, limits, permissions, inputs, outputs, process, hooks,
 * success_criteria and any other element (leaf → text, otherwise its XmlElement).
 * Sections outside the `<directive>` span (the Python implementation put
 * `<process>` after the fence) are body text for the LLM, not metadata.
 * `program` / `programIssues` hold the strict grammar's verdict (docs/directives.md),
 * which `validateItem` turns into sign-time issues.
 *
 * @throws RyeError PARSE_UNSAFE_CONTENT, METADATA_PARSE_FAILED (see parseDirectiveXml).
 */
export function extractDirectiveMetadata(text: string, source: string): DirectiveMetadata {
  const root = parseDirectiveXml(text, source);
  const metadata = child(root, 'metadata');
  const sections = new Map<string, unknown>();
  for (const el of metadata?.children ?? []) {
    if (!NAMED_FIELDS.has(el.tag)) sections.set(el.tag, readSection(el));
  }
  for (const el of root.children) {
    if (el.tag !== 'metadata' && el.tag !== 'description') sections.set(el.tag, readSection(el));
  }
  const field = (tag: string): string | undefined => child(metadata, tag)?.text;
  const reading = readDirectiveProgram(root, text);
  return {
    kind: 'directive',
    name: root.attributes['name'],
    version: root.attributes['version'],
    description: field('description') ?? child(root, 'description')?.text,
    category: field('category'),
    author: field('author'),
    sections: Object.fromEntries(sections),
    ...(reading.ok
      ? { program: reading.program, programIssues: [] }
      : { programIssues: reading.issues }),
  };
}

function child(el: XmlElement | undefined, tag: string): XmlElement | undefined {
  return el?.children.find((c) => c.tag === tag);
}

function readSection(el: XmlElement): unknown {
  switch (el.tag) {
    case 'model':
      return el.text === '' ? el.attributes : { ...el.attributes, content: el.text };
    case 'limits':
      return Object.fromEntries(
        Object.entries(el.attributes).map(([k, v]) => [k, /^\d+(\.\d+)?$/.test(v) ? Number(v) : v]),
      );
    case 'permissions':
      return readPermissions(el);
    case 'inputs':
      return el.children.filter((c) => c.tag === 'input').map(readInput);
    case 'outputs':
      return el.children.map((c): DirectiveOutput => ({
        name: c.attributes['name'] ?? c.tag,
        description: c.text,
      }));
    case 'process':
      return el.children.filter((c) => c.tag === 'step').map(readStep);
    case 'hooks':
      return el.children.filter((c) => c.tag === 'hook').map(readHook);
    case 'success_criteria':
      return el.children.filter((c) => c.tag === 'criterion').map((c) => c.text);
    default:
      return el.children.length === 0 && Object.keys(el.attributes).length === 0 ? el.text : el;
  }
}

function readPermissions(el: XmlElement): DirectivePermissions {
  if (el.children.length === 0) return el.text === '*' ? { '*': { '*': ['*'] } } : {};
  const verbs = new Map<string, Map<string, string[]>>();
  for (const verb of el.children) {
    const byType = verbs.get(verb.tag) ?? new Map<string, string[]>();
    verbs.set(verb.tag, byType);
    const grants = verb.children.length === 0 ? [{ tag: '*', text: verb.text }] : verb.children;
    for (const grant of grants) {
      if (grant.text === '') continue;
      // Appended in place: copying the list per grant is quadratic in a hostile list.
      const patterns = byType.get(grant.tag);
      if (patterns === undefined) byType.set(grant.tag, [grant.text]);
      else patterns.push(grant.text);
    }
  }
  return Object.fromEntries(
    [...verbs].map(([verb, byType]) => [verb, Object.fromEntries(byType)] as const),
  );
}

function readInput(el: XmlElement): DirectiveInput {
  const fallback = el.attributes['default'];
  return {
    name: el.attributes['name'],
    type: el.attributes['type'],
    required: el.attributes['required']?.toLowerCase() === 'true',
    ...(fallback === undefined ? {} : { default: fallback }),
    description: el.text,
  };
}

function readStep(el: XmlElement): DirectiveStep {
  const description = child(el, 'description')?.text ?? (el.text === '' ? undefined : el.text);
  return {
    name: el.attributes['name'],
    description,
    attributes: el.attributes,
    actions: collectActions(el),
  };
}

function collectActions(el: XmlElement): DirectiveAction[] {
  return el.children.flatMap((c): DirectiveAction[] => {
    if (!ACTION_VERBS.has(c.tag)) return collectActions(c);
    const params = c.children
      .filter((p) => p.tag === 'param' && p.attributes['name'] !== undefined)
      .map((p) => [p.attributes['name'] ?? '', p.attributes['value'] ?? p.text] as const);
    return [{ verb: c.tag, attributes: c.attributes, params: Object.fromEntries(params) }];
  });
}

function readHook(el: XmlElement): DirectiveHook {
  const inputs = (child(el, 'inputs')?.children ?? [])
    .filter((i) => i.attributes['name'] !== undefined)
    .map((i) => [i.attributes['name'] ?? '', i.attributes['value'] ?? i.text] as const);
  return {
    attributes: el.attributes,
    directive: child(el, 'directive')?.text,
    inputs: Object.fromEntries(inputs),
  };
}

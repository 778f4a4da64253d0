/**
 * `<permissions>` to a raw grant list (THREADS.md §3, directive XML forms).
 * Verbs and types are checked here; patterns are handed on as written for the
 * capability module to convert (dots to slashes) and compile. Pure.
 */
import type { XmlElement } from '../metadata/safe-xml.js';
import { PERMISSION_TYPES, PERMISSION_VERBS } from './grammar.js';
import {
  attrPath,
  checkAttributes,
  childPath,
  checkChildren,
  shown,
  type Issues,
} from './issues.js';
import { permissionPathProblem } from '../permissions.js';
import type { DirectivePermissionList, DirectiveSandbox, PermissionEntry } from './types.js';

/** Most grants one directive may declare. */
const MAX_ENTRIES = 256;
const MAX_PATTERN = 512;
// eslint-disable-next-line no-control-regex
const BAD_PATTERN_CHAR = /[\s\u0000-\u001f\u007f{}]/;

/** No `<permissions>`: nothing granted. */
export const NO_PERMISSIONS: DirectivePermissionList = {
  entries: [],
  everything: false,
  acknowledgeUnrestricted: false,
};

/** Read `<permissions>`, reporting unknown verbs and types, empty or templated patterns. */
export function readPermissions(
  el: XmlElement,
  path: string,
  issues: Issues,
): DirectivePermissionList {
  checkAttributes(el, path, [], issues);
  const allowed = Object.fromEntries([
    ...PERMISSION_VERBS.map((v) => [v, 'many'] as const),
    ['acknowledge', 'once'] as const,
    ['sandbox', 'once'] as const,
  ]);
  checkChildren(el, path, allowed, issues);
  const everything = el.text === '*';
  if (el.text !== '' && !everything) {
    issues.add(path, `text must be "*" (everything) or absent, got "${shown(el.text)}"`);
  }
  let acknowledgeUnrestricted = false;
  let sandbox: DirectiveSandbox | undefined;
  const entries: PermissionEntry[] = [];
  const counters = new Map<string, number>();
  for (const child of el.children) {
    const index = counters.get(child.tag) ?? 0;
    counters.set(child.tag, index + 1);
    const at = childPath(path, child.tag, index);
    if (child.tag === 'acknowledge') {
      acknowledgeUnrestricted = readAcknowledge(child, at, issues);
    } else if (child.tag === 'sandbox') {
      sandbox = readSandbox(child, at, issues);
    } else if ((PERMISSION_VERBS as readonly string[]).includes(child.tag)) {
      if (everything) issues.add(at, 'a verb element cannot follow "*" (everything is granted)');
      readVerb(child, at, entries, issues);
    }
  }
  if (entries.length > MAX_ENTRIES) {
    issues.add(path, `declares ${entries.length} grants (at most ${MAX_ENTRIES})`);
  }
  if (!everything && entries.length === 0 && el.children.length === 0) {
    issues.add(path, 'grants nothing: remove the element, or write the grants');
  }
  return {
    entries: entries.slice(0, MAX_ENTRIES),
    everything,
    acknowledgeUnrestricted,
    ...(sandbox === undefined ? {} : { sandbox }),
  };
}

/** `{input:name}` in a `<sandbox write>` entry: filled with the input at admission. */
export const SANDBOX_INPUT_PLACEHOLDER = /\{input:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * `<sandbox write="…" network="true|false" daemon="true|false"/>`: write
 * entries are whitespace-separated permission paths (docs/sandbox.md), each
 * placeholder standing for one path segment.
 */
function readSandbox(el: XmlElement, path: string, issues: Issues): DirectiveSandbox {
  checkAttributes(el, path, ['write', 'network', 'daemon'], issues);
  checkChildren(el, path, {}, issues);
  if (el.text !== '') issues.add(path, 'must be empty: <sandbox write="…" network="false"/>');
  const out: { write?: string[]; network?: boolean; daemon?: boolean } = {};
  const write = el.attributes['write'];
  if (write !== undefined) {
    out.write = write.split(/\s+/).filter((entry) => entry !== '');
    for (const entry of out.write) {
      const problem = permissionPathProblem(entry.replace(SANDBOX_INPUT_PLACEHOLDER, 'x'));
      if (entry.startsWith('!') || /[{}]/.test(entry.replace(SANDBOX_INPUT_PLACEHOLDER, 'x')))
        issues.add(
          attrPath(path, 'write'),
          `"${shown(entry)}" is not a folder to write (placeholders are {input:name})`,
        );
      else if (problem !== null)
        issues.add(attrPath(path, 'write'), `"${shown(entry)}" ${problem.why}`);
    }
  }
  for (const name of ['network', 'daemon'] as const) {
    const value = el.attributes[name];
    if (value === undefined) continue;
    if (value === 'true' || value === 'false') out[name] = value === 'true';
    else issues.add(attrPath(path, name), `must be "true" or "false", got "${shown(value)}"`);
  }
  return out;
}

function readAcknowledge(el: XmlElement, path: string, issues: Issues): boolean {
  checkAttributes(el, path, ['risk'], issues);
  checkChildren(el, path, {}, issues);
  if (el.text !== '') issues.add(path, 'must be empty: <acknowledge risk="unrestricted"/>');
  const risk = el.attributes['risk'];
  if (risk !== 'unrestricted') {
    const got = risk === undefined ? 'nothing' : `"${shown(risk)}"`;
    issues.add(attrPath(path, 'risk'), `must be "unrestricted", got ${got}`);
    return false;
  }
  return true;
}

function readVerb(el: XmlElement, path: string, out: PermissionEntry[], issues: Issues): void {
  checkAttributes(el, path, [], issues);
  const allowed = Object.fromEntries(PERMISSION_TYPES.map((t) => [t, 'many'] as const));
  checkChildren(el, path, allowed, issues);
  if (el.children.length === 0) {
    if (el.text === '*') out.push({ verb: el.tag, type: '*', value: '*' });
    else if (el.text === '') issues.add(path, `<${el.tag}> grants nothing`);
    else
      issues.add(
        path,
        `text must be "*" (every type) or typed children like <tool>, got "${shown(el.text)}"`,
      );
    return;
  }
  if (el.text !== '')
    issues.add(path, `text "${shown(el.text)}" beside typed grants is not allowed`);
  const counters = new Map<string, number>();
  for (const grant of el.children) {
    if (!(PERMISSION_TYPES as readonly string[]).includes(grant.tag)) continue;
    const index = counters.get(grant.tag) ?? 0;
    counters.set(grant.tag, index + 1);
    const at = childPath(path, grant.tag, index);
    checkAttributes(grant, at, [], issues);
    checkChildren(grant, at, {}, issues);
    const problem = patternProblem(grant.text);
    if (problem === undefined) {
      out.push({ verb: el.tag, type: grant.tag, value: grant.text });
    } else issues.add(at, problem);
  }
}

function patternProblem(pattern: string): string | undefined {
  if (pattern === '') return 'the pattern is empty';
  if (pattern.length > MAX_PATTERN) return `the pattern is longer than ${MAX_PATTERN} characters`;
  if (pattern.includes('{')) {
    return `the pattern "${shown(pattern)}" holds a placeholder: permissions are never interpolated`;
  }
  if (BAD_PATTERN_CHAR.test(pattern)) {
    return `the pattern "${shown(pattern)}" holds whitespace, a control character or a brace`;
  }
  return undefined;
}

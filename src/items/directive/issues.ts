/**
 * Issue collection and the structural checks every element reader shares:
 * unknown attributes, unknown or repeated children, stray text. Paths read like
 * `metadata.limits@max_turns` or `process.step[2].execute[0]@item_id`.
 */
import type { XmlElement } from '../metadata/safe-xml.js';
import type { ValidationIssue } from '../metadata/types.js';

/** Most issues kept; a hostile file cannot grow the error without bound. */
const MAX_ISSUES = 100;
const MAX_SHOWN = 80;

/** Collects issues (capped) so a directive fails once with all of them. */
export class Issues {
  readonly #list: ValidationIssue[] = [];
  #dropped = 0;

  /** Record an issue; a message function is only called while under the cap. */
  add(field: string, message: string | (() => string)): void {
    if (this.#list.length >= MAX_ISSUES) this.#dropped += 1;
    else this.#list.push({ field, message: typeof message === 'string' ? message : message() });
  }

  get count(): number {
    return this.#list.length + this.#dropped;
  }

  /** The issues, with a last entry counting those past the cap. */
  toArray(): ValidationIssue[] {
    if (this.#dropped === 0) return [...this.#list];
    const more = { field: '', message: `and ${this.#dropped} more issues` };
    return [...this.#list, more];
  }
}

/** `a.b` / `a@attr` path building; the root's path is ''. */
export function childPath(path: string, tag: string, index?: number): string {
  const own = index === undefined ? tag : `${tag}[${index}]`;
  return path === '' ? own : `${path}.${own}`;
}

export function attrPath(path: string, name: string): string {
  return `${path}@${name}`;
}

/** Report every attribute not in `allowed`. */
export function checkAttributes(
  el: XmlElement,
  path: string,
  allowed: readonly string[],
  issues: Issues,
): void {
  for (const name of Object.keys(el.attributes)) {
    if (!allowed.includes(name)) {
      const known = allowed.length === 0 ? 'none' : allowed.join(', ');
      issues.add(
        attrPath(path, shown(name)),
        `unknown attribute "${shown(name)}" (allowed: ${known})`,
      );
    }
  }
}

/**
 * Report children whose tag is not allowed, and repeats of single children.
 * `allowed` maps a tag to whether it may repeat.
 */
export function checkChildren(
  el: XmlElement,
  path: string,
  allowed: Readonly<Record<string, 'once' | 'many'>>,
  issues: Issues,
): void {
  const seen = new Set<string>();
  let list: string | undefined;
  for (const c of el.children) {
    const rule = Object.hasOwn(allowed, c.tag) ? allowed[c.tag] : undefined;
    if (rule === undefined) {
      list ??=
        Object.keys(allowed)
          .map((t) => `<${t}>`)
          .join(', ') || 'none';
      const tag = shown(c.tag);
      issues.add(childPath(path, tag), `unknown element <${tag}> (allowed: ${list})`);
    } else if (rule === 'once' && seen.has(c.tag)) {
      issues.add(childPath(path, c.tag), `<${c.tag}> appears more than once`);
    }
    seen.add(c.tag);
  }
}

/** Report text written directly inside a container element. */
export function checkNoText(el: XmlElement, path: string, issues: Issues): void {
  if (el.text !== '')
    issues.add(path || 'directive', `text is not allowed directly inside <${el.tag}>`);
}

/** A leaf's text: attributes and child elements reported. */
export function leafText(
  el: XmlElement,
  path: string,
  issues: Issues,
  attributes: readonly string[] = [],
): string {
  checkAttributes(el, path, attributes, issues);
  checkChildren(el, path, {}, issues);
  return el.text;
}

/** The first child with a tag. */
export function firstChild(el: XmlElement | undefined, tag: string): XmlElement | undefined {
  return el?.children.find((c) => c.tag === tag);
}

/** A value quoted for a message: control characters replaced, length capped. */
export function shown(value: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?');
  return clean.length > MAX_SHOWN ? `${clean.slice(0, MAX_SHOWN)}…` : clean;
}

/** `true`/`false` attribute; undefined when absent; reported otherwise. */
export function booleanAttr(
  el: XmlElement,
  path: string,
  name: string,
  issues: Issues,
): boolean | undefined {
  const raw = el.attributes[name];
  if (raw === undefined) return undefined;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  issues.add(attrPath(path, name), `must be "true" or "false", got "${shown(raw)}"`);
  return undefined;
}

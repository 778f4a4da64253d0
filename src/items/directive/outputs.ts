/**
 * `<outputs>`: `<success>`/`<failure>` summary templates and typed
 * `<output name type required>` fields (THREADS.md §2 "return schema"). Pure.
 */
import type { XmlElement } from '../metadata/safe-xml.js';
import { NAME_RE, VALUE_TYPES } from './grammar.js';
import {
  attrPath,
  booleanAttr,
  checkAttributes,
  checkChildren,
  checkNoText,
  childPath,
  firstChild,
  leafText,
  shown,
  type Issues,
} from './issues.js';
import { forEachToken } from './placeholders.js';
import type { DirectiveOutputDecl, DirectiveOutputs } from './types.js';
import { isValueType } from './value-type.js';

const MAX_OUTPUTS = 64;
/** Return fields the harness owns: a template or output cannot name them. */
const RESERVED_FIELDS = new Set(['outcome', '__proto__']);

/** Read `<outputs>`: at least one template or field, unique names, known types. */
export function readOutputs(el: XmlElement, path: string, issues: Issues): DirectiveOutputs {
  checkAttributes(el, path, [], issues);
  checkNoText(el, path, issues);
  checkChildren(el, path, { success: 'once', failure: 'once', output: 'many' }, issues);
  const template = (tag: 'success' | 'failure'): string | undefined => {
    const child = firstChild(el, tag);
    if (child === undefined) return undefined;
    const at = childPath(path, tag);
    const text = leafText(child, at, issues);
    if (text === '') issues.add(at, 'the template is empty');
    forEachToken(text, (token) => {
      if (token.kind === 'placeholder' && RESERVED_FIELDS.has(token.name)) {
        issues.add(at, `{${token.name}} names a field the harness owns`);
      }
    });
    return text;
  };
  const success = template('success');
  const failure = template('failure');
  const list = el.children.filter((c) => c.tag === 'output');
  if (list.length > MAX_OUTPUTS)
    issues.add(path, `declares ${list.length} outputs (at most ${MAX_OUTPUTS})`);
  const names = new Set<string>();
  const fields: DirectiveOutputDecl[] = [];
  list.slice(0, MAX_OUTPUTS).forEach((output, index) => {
    const field = readOutput(output, childPath(path, 'output', index), names, issues);
    if (field !== undefined) fields.push(field);
  });
  if (success === undefined && failure === undefined && list.length === 0) {
    issues.add(
      path,
      'declares nothing: add <success>, <failure> or <output> elements, or remove it',
    );
  }
  return {
    ...(success === undefined ? {} : { success }),
    ...(failure === undefined ? {} : { failure }),
    fields,
  };
}

function readOutput(
  el: XmlElement,
  path: string,
  names: Set<string>,
  issues: Issues,
): DirectiveOutputDecl | undefined {
  const description = leafText(el, path, issues, ['name', 'type', 'required']);
  const { name, type = 'string' } = el.attributes;
  const before = issues.count;
  if (name === undefined) issues.add(attrPath(path, 'name'), 'is required');
  else if (!NAME_RE.test(name) || RESERVED_FIELDS.has(name)) {
    issues.add(attrPath(path, 'name'), `"${shown(name)}" is not a valid output name`);
  } else if (names.has(name))
    issues.add(attrPath(path, 'name'), `output "${name}" is declared twice`);
  else names.add(name);
  if (!isValueType(type)) {
    issues.add(
      attrPath(path, 'type'),
      `unknown type "${shown(type)}" (known: ${VALUE_TYPES.join(', ')})`,
    );
  }
  const required = booleanAttr(el, path, 'required', issues) ?? false;
  if (issues.count > before || name === undefined || !isValueType(type)) return undefined;
  return { name, type, required, description };
}

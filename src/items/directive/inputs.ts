/**
 * `<inputs>`: `<input name type required default>description</input>`. Pure.
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
  shown,
  type Issues,
} from './issues.js';
import type { DirectiveInputDecl } from './types.js';
import { isValueType, parseDefault } from './value-type.js';

/** Most inputs one directive declares. */
const MAX_INPUTS = 64;

/** Read `<inputs>`: names unique and well formed, types known, defaults of their type. */
export function readInputs(el: XmlElement, path: string, issues: Issues): DirectiveInputDecl[] {
  checkAttributes(el, path, [], issues);
  checkNoText(el, path, issues);
  checkChildren(el, path, { input: 'many' }, issues);
  const inputs = el.children.filter((c) => c.tag === 'input');
  if (inputs.length > MAX_INPUTS) {
    issues.add(path, `declares ${inputs.length} inputs (at most ${MAX_INPUTS})`);
    return [];
  }
  const seen = new Set<string>();
  const out: DirectiveInputDecl[] = [];
  inputs.forEach((input, index) => {
    const decl = readInput(input, childPath(path, 'input', index), seen, issues);
    if (decl !== undefined) out.push(decl);
  });
  return out;
}

function readInput(
  el: XmlElement,
  path: string,
  seen: Set<string>,
  issues: Issues,
): DirectiveInputDecl | undefined {
  checkAttributes(el, path, ['name', 'type', 'required', 'default'], issues);
  checkChildren(el, path, {}, issues);
  const { name, type, default: fallback } = el.attributes;
  const before = issues.count;
  if (name === undefined) issues.add(attrPath(path, 'name'), 'is required');
  else if (!NAME_RE.test(name) || name === '__proto__') {
    issues.add(
      attrPath(path, 'name'),
      `must be a name like plan_path ([A-Za-z_][A-Za-z0-9_]*, up to 64), got "${shown(name)}"`,
    );
  } else if (seen.has(name)) {
    issues.add(attrPath(path, 'name'), `input "${name}" is declared twice`);
  } else seen.add(name);
  if (type === undefined) {
    issues.add(attrPath(path, 'type'), `is required (one of ${VALUE_TYPES.join(', ')})`);
  } else if (!isValueType(type)) {
    issues.add(
      attrPath(path, 'type'),
      `unknown type "${shown(type)}" (known: ${VALUE_TYPES.join(', ')})`,
    );
  }
  const required = booleanAttr(el, path, 'required', issues) ?? false;
  if (issues.count > before || name === undefined || type === undefined || !isValueType(type)) {
    return undefined;
  }
  if (fallback === undefined) return { name, type, required, description: el.text };
  if (required) {
    issues.add(attrPath(path, 'default'), 'a required input cannot have a default');
    return undefined;
  }
  const parsed = parseDefault(type, fallback);
  if ('problem' in parsed) {
    issues.add(attrPath(path, 'default'), parsed.problem);
    return undefined;
  }
  return { name, type, required, default: parsed.value, description: el.text };
}

import type { XmlElement } from '../metadata/safe-xml.js';
import { attrPath, checkAttributes, checkChildren, shown, type Issues } from './issues.js';

/**
 * A `<param>` or hook `<input>`: `name` plus a `value` attribute or text
 * (not both). Returns undefined after reporting a problem.
 */
export function namedValue(
  el: XmlElement,
  path: string,
  issues: Issues,
  nameRe: RegExp,
): { name: string; value: string } | undefined {
  checkAttributes(el, path, ['name', 'value'], issues);
  checkChildren(el, path, {}, issues);
  const { name, value } = el.attributes;
  if (name === undefined) {
    issues.add(attrPath(path, 'name'), 'is required');
    return undefined;
  }
  if (!nameRe.test(name) || name === '__proto__') {
    issues.add(attrPath(path, 'name'), `"${shown(name)}" is not a valid name`);
    return undefined;
  }
  if (value !== undefined && el.text !== '') {
    issues.add(path, 'give the value as the value attribute or as text, not both');
    return undefined;
  }
  return { name, value: value ?? el.text };
}

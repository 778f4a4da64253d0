/**
 * `<process>`: steps with a description and `<execute>`, `<load>`, `<search>`
 * or `<sign>` children. Pure.
 */
import type { XmlElement } from '../metadata/safe-xml.js';
import { PERMISSION_TYPES } from './grammar.js';
import { idTemplateProblem } from './id-template.js';
import { namedValue } from './named-value.js';
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
import type { DirectiveStep, StepAction } from './types.js';

const MAX_STEPS = 256;
const MAX_ACTIONS = 64;
const MAX_PARAMS = 64;
const STEP_NAME_RE = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const PARAM_NAME_RE = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

interface VerbRule {
  readonly types: readonly string[];
  readonly attributes: readonly string[];
  readonly params: boolean;
}

const VERBS: Readonly<Record<StepAction['verb'], VerbRule>> = {
  execute: { types: ['tool', 'directive'], attributes: ['item_type', 'item_id'], params: true },
  load: { types: PERMISSION_TYPES, attributes: ['item_type', 'item_id'], params: false },
  search: { types: PERMISSION_TYPES, attributes: ['item_type', 'query'], params: false },
  sign: { types: PERMISSION_TYPES, attributes: ['item_type', 'item_id'], params: false },
};

/** Read `<process>`: unique step names, known children, valid item ids and params. */
export function readProcess(el: XmlElement, path: string, issues: Issues): DirectiveStep[] {
  checkAttributes(el, path, [], issues);
  checkNoText(el, path, issues);
  checkChildren(el, path, { step: 'many' }, issues);
  const steps = el.children.filter((c) => c.tag === 'step');
  if (steps.length > MAX_STEPS) {
    issues.add(path, `declares ${steps.length} steps (at most ${MAX_STEPS})`);
    return [];
  }
  const names = new Set<string>();
  return steps.map((step, index) => readStep(step, childPath(path, 'step', index), names, issues));
}

function readStep(el: XmlElement, path: string, names: Set<string>, issues: Issues): DirectiveStep {
  checkAttributes(el, path, ['name', 'parallel'], issues);
  checkChildren(
    el,
    path,
    { description: 'once', execute: 'many', load: 'many', search: 'many', sign: 'many' },
    issues,
  );
  const name = el.attributes['name'] ?? '';
  if (el.attributes['name'] === undefined) issues.add(attrPath(path, 'name'), 'is required');
  else if (!STEP_NAME_RE.test(name)) {
    issues.add(attrPath(path, 'name'), `must be a name like wave_1, got "${shown(name)}"`);
  } else if (names.has(name))
    issues.add(attrPath(path, 'name'), `step "${name}" is declared twice`);
  else names.add(name);
  const parallel = booleanAttr(el, path, 'parallel', issues) ?? false;
  const descriptionEl = firstChild(el, 'description');
  let description = el.text;
  if (descriptionEl !== undefined) {
    description = leafText(descriptionEl, childPath(path, 'description'), issues);
    if (el.text !== '') issues.add(path, 'text outside <description> is not allowed');
  }
  const actionEls = el.children.filter((c) => Object.hasOwn(VERBS, c.tag));
  if (actionEls.length > MAX_ACTIONS) {
    issues.add(path, `has ${actionEls.length} actions (at most ${MAX_ACTIONS})`);
  }
  const counters = new Map<string, number>();
  const actions = actionEls.slice(0, MAX_ACTIONS).map((action) => {
    const index = counters.get(action.tag) ?? 0;
    counters.set(action.tag, index + 1);
    return readAction(action, childPath(path, action.tag, index), issues);
  });
  if (description === '' && actions.length === 0) {
    issues.add(path, 'the step is empty: give it a <description> or an action');
  }
  return { name, description, parallel, actions };
}

function readAction(el: XmlElement, path: string, issues: Issues): StepAction {
  const verb = el.tag as StepAction['verb'];
  const rule = VERBS[verb];
  checkAttributes(el, path, rule.attributes, issues);
  checkChildren(el, path, rule.params ? { param: 'many' } : {}, issues);
  if (el.text !== '') issues.add(path, `text is not allowed inside <${verb}>`);
  const itemType = el.attributes['item_type'] ?? '';
  if (!rule.types.includes(itemType)) {
    const got = el.attributes['item_type'] === undefined ? 'nothing' : `"${shown(itemType)}"`;
    issues.add(attrPath(path, 'item_type'), `must be one of ${rule.types.join(', ')}, got ${got}`);
  }
  const params = rule.params ? readParams(el, path, issues) : Object.create(null);
  if (verb === 'search') {
    const query = el.attributes['query'];
    if (query === undefined || query.trim() === '')
      issues.add(attrPath(path, 'query'), 'is required');
    return { verb, itemType, query: query ?? '', params };
  }
  const itemId = el.attributes['item_id'];
  if (itemId === undefined) issues.add(attrPath(path, 'item_id'), 'is required');
  else {
    const problem = idTemplateProblem(itemId);
    if (problem !== undefined) {
      issues.add(attrPath(path, 'item_id'), `"${shown(itemId)}" is not an item id: ${problem}`);
    }
  }
  return { verb, itemType, itemId: itemId ?? '', params };
}

function readParams(el: XmlElement, path: string, issues: Issues): Record<string, string> {
  const params: Record<string, string> = Object.create(null);
  const list = el.children.filter((c) => c.tag === 'param');
  if (list.length > MAX_PARAMS) {
    issues.add(path, `has ${list.length} params (at most ${MAX_PARAMS})`);
    return params;
  }
  list.forEach((param, index) => {
    const at = childPath(path, 'param', index);
    const value = namedValue(param, at, issues, PARAM_NAME_RE);
    if (value === undefined) return;
    if (Object.hasOwn(params, value.name)) {
      issues.add(attrPath(at, 'name'), `param "${value.name}" is given twice`);
    } else params[value.name] = value.value;
  });
  return params;
}

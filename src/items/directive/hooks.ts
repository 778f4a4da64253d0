/**
 * `<hooks>`: `<hook event when ratio result_mode>` with one `<directive>` or
 * `<tool>` action and optional `<inputs>` (THREADS.md §12). Pure.
 */
import type { XmlElement } from '../metadata/safe-xml.js';
import { HOOK_EVENTS, NAME_RE, type HookEvent, type ResultMode } from './grammar.js';
import { idTemplateProblem } from './id-template.js';
import {
  attrPath,
  checkAttributes,
  checkChildren,
  checkNoText,
  childPath,
  firstChild,
  leafText,
  shown,
  type Issues,
} from './issues.js';
import { namedValue } from './named-value.js';
import type { DirectiveHook } from './types.js';

const MAX_HOOKS = 32;
const MAX_HOOK_INPUTS = 64;
const RATIO_RE = /^0\.[0-9]{1,6}$/;

/** Read `<hooks>`: known events, `when` values and result modes; one valid action each. */
export function readHooks(el: XmlElement, path: string, issues: Issues): DirectiveHook[] {
  checkAttributes(el, path, [], issues);
  checkNoText(el, path, issues);
  checkChildren(el, path, { hook: 'many' }, issues);
  const hooks = el.children.filter((c) => c.tag === 'hook');
  if (hooks.length > MAX_HOOKS) {
    issues.add(path, `declares ${hooks.length} hooks (at most ${MAX_HOOKS})`);
    return [];
  }
  const out: DirectiveHook[] = [];
  hooks.forEach((hook, index) => {
    const read = readHook(hook, childPath(path, 'hook', index), issues);
    if (read !== undefined) out.push(read);
  });
  return out;
}

function readHook(el: XmlElement, path: string, issues: Issues): DirectiveHook | undefined {
  checkAttributes(el, path, ['event', 'when', 'ratio', 'result_mode'], issues);
  checkNoText(el, path, issues);
  checkChildren(el, path, { directive: 'once', tool: 'once', inputs: 'once' }, issues);
  const before = issues.count;
  const event = readEvent(el, path, issues);
  const rule = event === undefined ? undefined : HOOK_EVENTS[event];
  const { when, ratio: rawRatio, result_mode: mode } = el.attributes;
  if (rule !== undefined && when !== undefined) {
    const allowed: readonly string[] = rule.when;
    if (allowed.length === 0)
      issues.add(attrPath(path, 'when'), `is not allowed on a ${event} hook`);
    else if (!allowed.includes(when)) {
      issues.add(
        attrPath(path, 'when'),
        `unknown value "${shown(when)}" (known: ${allowed.join(', ')})`,
      );
    }
  }
  let ratio: number | undefined;
  if (rule !== undefined && rawRatio !== undefined) {
    if (!rule.ratio) issues.add(attrPath(path, 'ratio'), `is not allowed on a ${event} hook`);
    else if (!RATIO_RE.test(rawRatio) || Number(rawRatio) === 0) {
      issues.add(
        attrPath(path, 'ratio'),
        `must be a decimal between 0 and 1 like 0.8, got "${shown(rawRatio)}"`,
      );
    } else ratio = Number(rawRatio);
  }
  if (
    rule !== undefined &&
    mode !== undefined &&
    !(rule.modes as readonly string[]).includes(mode)
  ) {
    issues.add(
      attrPath(path, 'result_mode'),
      `"${shown(mode)}" is not a result mode of ${event} hooks (allowed: ${rule.modes.join(', ')})`,
    );
  }
  const action = readAction(el, path, issues);
  const inputsEl = firstChild(el, 'inputs');
  const inputs = inputsEl ? readHookInputs(inputsEl, childPath(path, 'inputs'), issues) : {};
  if (event === undefined || action === undefined || issues.count > before) return undefined;
  return {
    event,
    ...(when === undefined ? {} : { when }),
    ...(ratio === undefined ? {} : { ratio }),
    ...(mode === undefined ? {} : { resultMode: mode as ResultMode }),
    action,
    inputs,
  };
}

function readEvent(el: XmlElement, path: string, issues: Issues): HookEvent | undefined {
  const event = el.attributes['event'];
  const known = Object.keys(HOOK_EVENTS).join(', ');
  if (event === undefined) issues.add(attrPath(path, 'event'), `is required (one of ${known})`);
  else if (!Object.hasOwn(HOOK_EVENTS, event)) {
    issues.add(attrPath(path, 'event'), `unknown hook event "${shown(event)}" (known: ${known})`);
  } else return event as HookEvent;
  return undefined;
}

function readAction(
  el: XmlElement,
  path: string,
  issues: Issues,
): DirectiveHook['action'] | undefined {
  const directive = firstChild(el, 'directive');
  const tool = firstChild(el, 'tool');
  if ((directive === undefined) === (tool === undefined)) {
    issues.add(path, 'needs exactly one action: a <directive> or a <tool> element');
    return undefined;
  }
  const kind = directive === undefined ? 'tool' : 'directive';
  const at = childPath(path, kind);
  const itemId = leafText((directive ?? tool) as XmlElement, at, issues);
  const problem = idTemplateProblem(itemId);
  if (problem !== undefined) {
    issues.add(at, `"${shown(itemId)}" is not an item id: ${problem}`);
    return undefined;
  }
  return { kind, itemId };
}

function readHookInputs(el: XmlElement, path: string, issues: Issues): Record<string, string> {
  checkAttributes(el, path, [], issues);
  checkNoText(el, path, issues);
  checkChildren(el, path, { input: 'many' }, issues);
  const inputs: Record<string, string> = Object.create(null);
  const list = el.children.filter((c) => c.tag === 'input');
  if (list.length > MAX_HOOK_INPUTS) {
    issues.add(path, `has ${list.length} inputs (at most ${MAX_HOOK_INPUTS})`);
    return inputs;
  }
  list.forEach((input, index) => {
    const at = childPath(path, 'input', index);
    const value = namedValue(input, at, issues, NAME_RE);
    if (value === undefined) return;
    if (Object.hasOwn(inputs, value.name)) {
      issues.add(attrPath(at, 'name'), `input "${value.name}" is given twice`);
    } else inputs[value.name] = value.value;
  });
  return inputs;
}

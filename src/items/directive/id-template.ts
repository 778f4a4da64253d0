/**
 * Item ids that may hold `{input:x}` (step actions, hook actions): checked at
 * sign time with each placeholder standing for a plain segment, and again after
 * interpolation (threads/directive/hooks). Pure.
 */
import { problemWith } from '../item-id.js';
import { replaceTokens } from './placeholders.js';

/** The problem with an id template, or undefined. `{input:x}` counts as the text `x`. */
export function idTemplateProblem(template: string): string | undefined {
  const sample = replaceTokens(template, (t) => (t.kind === 'input' ? t.name : undefined));
  return problemWith(sample);
}

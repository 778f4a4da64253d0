import { RyeError } from '../errors/index.js';
import { printable } from '../platform/index.js';
import { compileCaps, type CapSet } from './cap-set.js';
import {
  CAPABILITY_PREFIX,
  capabilityProblem,
  parseCapability,
  type Capability,
} from './capability.js';

/** Largest `--caps` list or file accepted, in characters. */
export const MAX_CAPS_TEXT = 64 * 1024;

/** Where `--caps` took its list from. */
export interface CapsOption {
  readonly set: CapSet;
  /** The capabilities as written (parsed, in order). */
  readonly declared: readonly Capability[];
  /** `inline`, or the file path read. */
  readonly from: string;
}

/**
 * Parse the CLI's `--caps FILE|LIST`. The rule: text starting with `@` names a
 * file (`@caps.txt`); text whose first entry starts with `rye.` is an inline
 * list; anything else is a file path. A list separates capability strings by
 * commas and/or whitespace; a file holds one per line (commas and spaces also
 * separate), with `#` starting a comment to the end of the line. Every bad
 * entry is reported at once; an empty list is refused (a typo must not turn
 * into "allow nothing" or, worse, be skipped). `readFile` does the only I/O.
 *
 * @throws RyeError CAPABILITY_INVALID (`details.issues`), or what `readFile` throws.
 */
export function parseCapsOption(text: string, readFile: (path: string) => string): CapsOption {
  const trimmed = text.trim();
  const inline = trimmed.startsWith(CAPABILITY_PREFIX);
  const from = inline ? 'inline' : trimmed.startsWith('@') ? trimmed.slice(1) : trimmed;
  if (from === '') throw invalid('--caps names no file and lists no capability', [], from);
  const body = inline ? trimmed : readFile(from);
  if (body.length > MAX_CAPS_TEXT)
    throw invalid(`the list is larger than ${MAX_CAPS_TEXT} characters`, [], from);
  const entries = (inline ? body : withoutComments(body)).split(/[\s,]+/).filter((e) => e !== '');
  const declared: Capability[] = [];
  const issues: string[] = [];
  for (const entry of entries) {
    const why = capabilityProblem(entry);
    if (why === undefined) declared.push(parseCapability(entry));
    else issues.push(`"${printable(entry)}": ${why}`);
  }
  if (issues.length > 0) throw invalid(issues.join('; '), issues, from);
  if (declared.length === 0) throw invalid('it lists no capability', [], from);
  return { set: compileCaps(declared), declared, from };
}

function withoutComments(body: string): string {
  return body
    .split(/\r?\n/)
    .map((line) => {
      const hash = line.indexOf('#');
      return hash === -1 ? line : line.slice(0, hash);
    })
    .join('\n');
}

function invalid(why: string, issues: readonly string[], from: string): RyeError {
  const where = from === 'inline' ? '--caps' : `--caps file ${from}`;
  return new RyeError('CAPABILITY_INVALID', `Cannot use ${where}: ${why}`, { issues, from });
}

import { RyeError } from '../../errors/index.js';
import type { DirectiveSandbox } from '../../items/index.js';
import { meetGrants, type SandboxGrants } from '../../executor/index.js';
import type { InputValues } from '../directive/index.js';

/** What one `{input:name}` of a `<sandbox write>` entry may become: one plain path segment. */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const PLACEHOLDER = /\{input:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * A thread's sandbox bound: its directive's `<sandbox>` with the inputs
 * filled in, met with the caller's bound (a child never gets wider than its
 * parent). Null when neither narrows. Pure.
 *
 * @throws RyeError INPUTS_INVALID when an input a placeholder names is not
 *   one plain path segment (`apps/{input:name}/**` with name `../..` never
 *   widens a write).
 */
export function threadSandboxGrants(
  declared: DirectiveSandbox | undefined,
  inputs: InputValues,
  caller: SandboxGrants | undefined,
  directiveId: string,
): SandboxGrants | null {
  const own: SandboxGrants | undefined =
    declared === undefined
      ? undefined
      : {
          ...(declared.write === undefined
            ? {}
            : { write: declared.write.map((entry) => fill(entry, inputs, directiveId)) }),
          ...(declared.network === undefined ? {} : { network: declared.network }),
          ...(declared.daemon === undefined ? {} : { daemon: declared.daemon }),
        };
  return meetGrants(caller, own) ?? null;
}

function fill(entry: string, inputs: InputValues, directiveId: string): string {
  return entry.replace(PLACEHOLDER, (_, name: string) => {
    const value = Object.hasOwn(inputs, name) ? inputs[name] : undefined;
    if (typeof value === 'string' && SEGMENT.test(value) && value !== '.' && value !== '..')
      return value;
    throw new RyeError(
      'INPUTS_INVALID',
      `Cannot admit ${directiveId}: input ${name} fills a <sandbox write> path and must be one plain path segment (letters, digits, _ . -), got ${JSON.stringify(value)}`,
      { directive: directiveId, input: name },
    );
  });
}

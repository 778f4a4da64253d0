import { RyeError } from '../errors/index.js';
import { ITEM_TYPES } from '../items/index.js';
import { printable as shown } from '../platform/index.js';
import { compileCaps, type CapSet } from './cap-set.js';
import {
  CAP_VERBS,
  CAPABILITY_PREFIX,
  isCapType,
  isCapVerb,
  type Capability,
} from './capability.js';
import { droppedFrom } from './intersect.js';
import { ANY_ID, patternProblem } from './pattern.js';

/**
 * One grant as the directive parser reads it, un-interpolated:
 * `<execute><tool>rye.file-system.*</tool></execute>` is
 * `{verb: 'execute', type: 'tool', value: 'rye.file-system.*'}`;
 * `<execute>*</execute>` is `{verb: 'execute', type: '*', value: '*'}`.
 */
export interface RawPermission {
  readonly verb: string;
  /** `tool`, `directive`, `knowledge`, or `*` for all three. */
  readonly type: string;
  readonly value: string;
}

/** A directive's `<permissions>` block and its `<acknowledge>` flag. */
export interface RawPermissions {
  readonly permissions: readonly RawPermission[];
  /** `<permissions>*</permissions>`: every verb on every type. */
  readonly everything: boolean;
  /** `<acknowledge risk="unrestricted"/>`: required for any `sign` grant. */
  readonly acknowledgeUnrestricted: boolean;
}

/** A directive's declared set, and the grants admission moved aside. */
export interface DeclaredCaps {
  readonly set: CapSet;
  readonly caps: readonly Capability[];
  /** `sign` grants declared without the acknowledgement (they go to `caps_dropped`). */
  readonly dropped: readonly Capability[];
}

/**
 * Turn a directive's raw permissions into capabilities. A value in dot form
 * (`rye.file-system.*`) has every `.` turned into `/` (`rye/file-system/*`);
 * one holding a `/` passes unchanged (and a dot in it is then refused, as ids
 * hold none); `*` is every id. Type `*` stands for all three types. Any `sign`
 * grant, `<permissions>*</permissions>`'s included, is dropped unless
 * `acknowledgeUnrestricted`. Every problem is collected, then reported once.
 *
 * @throws RyeError CAPABILITY_INVALID listing every bad grant in `details.issues`
 *   (unknown verb or type, a `{` template, `?`, a mid-pattern `*`, an invalid id).
 */
export function capsFromDirective(raw: RawPermissions): DeclaredCaps {
  const declared: Capability[] = [];
  const issues: string[] = [];
  if (raw.everything) {
    for (const verb of CAP_VERBS)
      for (const type of ITEM_TYPES) declared.push({ verb, type, pattern: ANY_ID });
  }
  for (const [index, permission] of raw.permissions.entries()) {
    const why = grantProblem(permission);
    if (why !== undefined) {
      issues.push(`permission ${index + 1} <${shown(permission.verb)}>: ${why}`);
      continue;
    }
    const pattern = patternOfValue(permission.value.trim());
    const types = permission.type === '*' ? ITEM_TYPES : [permission.type];
    for (const type of types) {
      if (isCapVerb(permission.verb) && isCapType(type))
        declared.push({ verb: permission.verb, type, pattern });
    }
  }
  if (issues.length > 0) {
    throw new RyeError(
      'CAPABILITY_INVALID',
      `Cannot use the directive's permissions: ${issues.length === 1 ? issues[0] : `${issues.length} problems: ${issues.join('; ')}`}`,
      { issues },
    );
  }
  const kept = raw.acknowledgeUnrestricted ? declared : declared.filter((c) => c.verb !== 'sign');
  const set = compileCaps(kept);
  return { set, caps: set.caps, dropped: droppedFrom(set, declared) };
}

/** `rye.file-system.*` → `rye/file-system/*`; slash text and `*` unchanged. Pure. */
export function patternOfValue(value: string): string {
  if (value === ANY_ID || value.includes('/')) return value;
  return value.replaceAll('.', '/');
}

function grantProblem(permission: RawPermission): string | undefined {
  if (!isCapVerb(permission.verb))
    return `unknown verb "${shown(permission.verb)}" (expected ${CAP_VERBS.join(', ')})`;
  if (permission.type !== '*' && !isCapType(permission.type))
    return `unknown item type "${shown(permission.type)}" (expected ${ITEM_TYPES.join(', ')} or *)`;
  const value = permission.value.trim();
  const why = patternProblem(patternOfValue(value));
  if (why === undefined) return undefined;
  const as = `${CAPABILITY_PREFIX}${permission.verb}.${permission.type}.${patternOfValue(value)}`;
  return `"${shown(value)}" (as ${shown(as)}) is refused: ${why}`;
}

/**
 * A parsed directive's `<permissions>` (items' DirectivePermissionList) as
 * capabilities: the one conversion admission, the orchestrator lint and MCP
 * ceilings share.
 *
 * @throws RyeError CAPABILITY_INVALID, as capsFromDirective
 */
export function capsOfPermissions(permissions: {
  readonly entries: readonly RawPermission[];
  readonly everything: boolean;
  readonly acknowledgeUnrestricted: boolean;
}): DeclaredCaps {
  return capsFromDirective({
    permissions: permissions.entries,
    everything: permissions.everything,
    acknowledgeUnrestricted: permissions.acknowledgeUnrestricted,
  });
}

import { RyeError } from '../errors/index.js';
import { isSemver, problemWith } from '../items/index.js';

/**
 * Names on the wire, checked identically by the server and the client:
 * usernames (which are namespaces), `<namespace>/<item_id>` references and
 * versions. Pure; every parse function throws a RyeError with a stable code.
 */

/** 2–39 characters, lowercase letters, digits, `_` and `-`, starting with a letter or digit. */
export const USERNAME_RE = /^[a-z0-9][a-z0-9_-]{1,38}$/;

/** True for a valid username (and so namespace). */
export function isUsername(value: unknown): value is string {
  return typeof value === 'string' && USERNAME_RE.test(value);
}

/** A published reference: who publishes it and the id inside their namespace. */
export interface RegistryRef {
  readonly namespace: string;
  readonly itemId: string;
}

/**
 * Split `<namespace>/<item_id>`; the id is checked like a local item id (no
 * `..`, not absolute, no backslashes), so a reference can never name a path
 * outside the folder it lands in.
 *
 * @throws RyeError REGISTRY_REF_INVALID
 */
export function parseRegistryRef(ref: string): RegistryRef {
  const slash = ref.indexOf('/');
  const namespace = slash < 0 ? '' : ref.slice(0, slash);
  const itemId = slash < 0 ? '' : ref.slice(slash + 1);
  if (!isUsername(namespace)) {
    throw new RyeError(
      'REGISTRY_REF_INVALID',
      `Cannot use "${printable(ref)}": expected <namespace>/<item_id> with a namespace of 2-39 characters [a-z0-9_-]`,
      { ref: printable(ref) },
    );
  }
  assertRegistryId(itemId, ref);
  return { namespace, itemId };
}

/**
 * Check an item or bundle id as it travels to and from a registry.
 *
 * @throws RyeError REGISTRY_REF_INVALID
 */
export function assertRegistryId(itemId: string, shown: string = itemId): void {
  const why = problemWith(itemId);
  if (why !== undefined) {
    throw new RyeError('REGISTRY_REF_INVALID', `Cannot use "${printable(shown)}": ${why}`, {
      ref: printable(shown),
    });
  }
}

/**
 * Check a version: semver, exactly as written.
 *
 * @throws RyeError REGISTRY_REF_INVALID
 */
export function assertVersion(version: string): void {
  if (!isSemver(version)) {
    throw new RyeError(
      'REGISTRY_REF_INVALID',
      `Cannot use version "${printable(version)}": versions are semver, e.g. 1.2.0`,
      { version: printable(version) },
    );
  }
}

function printable(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]/g, '?').slice(0, 200);
}

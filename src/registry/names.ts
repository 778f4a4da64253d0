import { RyeError } from '../errors/index.js';
import { isSemver, problemWith } from '../items/index.js';
import { printable } from '../platform/index.js';

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
      `Cannot use "${printable(ref, 200)}": expected <namespace>/<item_id> with a namespace of 2-39 characters [a-z0-9_-]`,
      { ref: printable(ref, 200) },
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
    throw new RyeError('REGISTRY_REF_INVALID', `Cannot use "${printable(shown, 200)}": ${why}`, {
      ref: printable(shown, 200),
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
      `Cannot use version "${printable(version, 200)}": versions are semver, e.g. 1.2.0`,
      { version: printable(version, 200) },
    );
  }
}

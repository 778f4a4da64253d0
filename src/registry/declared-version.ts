import { RyeError } from '../errors/index.js';
import type { ItemMetadata } from '../items/index.js';

/**
 * The version an item declares in its own signed metadata (`__version__`,
 * `export const version`, `<directive version=…>`, knowledge `version:`), or
 * null when it declares none (a tool helper that is not an entry point). Pure.
 */
export function declaredVersionOf(metadata: ItemMetadata): string | null {
  const value =
    metadata.kind === 'directive'
      ? metadata.version
      : metadata.kind === 'tool'
        ? metadata.fields.version
        : metadata.fields['version'];
  return typeof value === 'string' ? value : null;
}

/**
 * An item's registry version must be the version it declares (issue 11): a
 * pull of `x@2.0.0` that writes a file saying 1.0.0 would mislead its reader
 * and its lockfile. `allowMismatch` is the publisher's explicit override
 * (`--allow-version-mismatch`, `allow_version_mismatch: true` on the wire).
 *
 * @throws RyeError REGISTRY_VERSION_MISMATCH
 */
export function assertVersionAgrees(
  label: string,
  declared: string | null,
  version: string,
  allowMismatch: boolean,
): void {
  if (declared === null || declared === version || allowMismatch) return;
  throw new RyeError(
    'REGISTRY_VERSION_MISMATCH',
    `Cannot publish ${label} as version ${version}: the item declares version ${declared.slice(0, 64)}; publish it as ${declared.slice(0, 64)}, or change its version and re-sign it (or pass --allow-version-mismatch)`,
    { declared: declared.slice(0, 64), version },
  );
}

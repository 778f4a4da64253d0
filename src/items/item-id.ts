import { RyeError } from '../errors/index.js';
import { printable } from '../platform/index.js';

/** Longest item id accepted. */
const MAX_ID_LENGTH = 512;

/**
 * One id segment. No `.`: a capability written in dot form in a directive
 * (`rye.file-system.*`) becomes an id pattern by turning every `.` into `/`,
 * which is unambiguous only if no id holds a dot (docs/capabilities.md).
 */
const SEGMENT_RE = /^[A-Za-z0-9_][A-Za-z0-9_+@-]*$/;

/**
 * Check an item id: a relative, forward-slash path without extension. Refuses
 * `..` anywhere, absolute paths, backslashes, empty segments, control
 * characters, drive letters and any `.` (segments are `[A-Za-z0-9_+@-]`, not
 * starting with `+`, `@` or `-`), so an id can never leave its type folder and
 * the dot form of capabilities maps to ids without ambiguity.
 *
 * @throws RyeError ITEM_ID_INVALID
 */
export function parseItemId(id: string): string {
  const why = problemWith(id);
  if (why !== undefined) {
    throw new RyeError('ITEM_ID_INVALID', `Cannot use item id "${printable(id, 120)}": ${why}`, {
      itemId: id,
    });
  }
  return id;
}

/** The reason an id is invalid, or undefined when it is valid. */
export function problemWith(id: string): string | undefined {
  if (id.length === 0) return 'it is empty';
  if (id.length > MAX_ID_LENGTH) return `it is longer than ${MAX_ID_LENGTH} characters`;
  if (id.includes('..')) return 'it contains ".."';
  if (id.includes('\\')) return 'it contains a backslash';
  if (id.startsWith('/')) return 'it is an absolute path';
  if (/^[A-Za-z]:/.test(id)) return 'it starts with a drive letter';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(id)) return 'it contains control characters';
  const segments = id.split('/');
  if (segments.some((s) => s === '')) return 'it has an empty path segment';
  const bad = segments.find((s) => !SEGMENT_RE.test(s));
  if (bad === undefined) return undefined;
  if (bad.includes('.')) return `segment "${bad}" contains "." (ids use "/" between segments)`;
  return `segment "${bad}" has characters outside [A-Za-z0-9_+@-] or starts with one`;
}

/**
 * One regex for the same rule as {@link problemWith}: for hot paths (a
 * capability check per call) that only need yes or no.
 */
const ID_RE = /^[A-Za-z0-9_][A-Za-z0-9_+@-]*(?:\/[A-Za-z0-9_][A-Za-z0-9_+@-]*)*$/;

/** True when {@link problemWith} finds nothing wrong with `id`. Pure, allocation-free. */
export function isItemId(id: string): boolean {
  return id.length <= MAX_ID_LENGTH && ID_RE.test(id);
}

/** The last segment of an id (the item's name). */
export function itemName(id: string): string {
  return id.slice(id.lastIndexOf('/') + 1);
}

/** The folder part of an id (the item's category), "" at the top level. */
export function itemCategory(id: string): string {
  const slash = id.lastIndexOf('/');
  return slash === -1 ? '' : id.slice(0, slash);
}

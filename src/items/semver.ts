/**
 * A semantic version exactly as written (semver.org 2.0.0 grammar): no leading
 * `v`, no spaces, no leading zeros, optional pre-release and build parts.
 * A regex instead of the `semver` package keeps CLI start-up light.
 */
const SEMVER_RE =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** Longest version string (the `semver` package's MAX_LENGTH). */
const MAX_LENGTH = 256;

/**
 * True when `value` is a semantic version string that every consumer can hold:
 * the grammar above, at most 256 characters, and every numeric identifier
 * (major, minor, patch and numeric pre-release parts) at most
 * Number.MAX_SAFE_INTEGER, the `semver` package's limits. So a version this
 * accepts is one `semver` (and any tool built on it) parses and orders the
 * same way: `99999999999999999999.0.0` is refused here, not thrown on later.
 */
export function isSemver(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > MAX_LENGTH) return false;
  const m = SEMVER_RE.exec(value);
  if (m === null) return false;
  const numeric = [m[1], m[2], m[3], ...(m[4]?.split('.') ?? [])].filter(
    (part): part is string => part !== undefined && NUMERIC.test(part),
  );
  return numeric.every(isSafeNumber);
}

/** Digits only (no leading zeros, by the grammar) and at most MAX_SAFE_INTEGER. */
function isSafeNumber(digits: string): boolean {
  return digits.length < 16 || (digits.length === 16 && Number(digits) <= Number.MAX_SAFE_INTEGER);
}

/**
 * Semver precedence (semver.org 2.0.0 §11): negative when `a` comes before `b`,
 * positive after, 0 when equal (build metadata ignored). Pure.
 *
 * @throws TypeError when either is not a semantic version (check with isSemver first).
 */
export function compareSemver(a: string, b: string): number {
  const x = isSemver(a) ? SEMVER_RE.exec(a) : null;
  const y = isSemver(b) ? SEMVER_RE.exec(b) : null;
  if (x === null || y === null)
    throw new TypeError(
      `Cannot compare versions: ${JSON.stringify(x === null ? a : b)} is not semver`,
    );
  for (let i = 1; i <= 3; i += 1) {
    const d = compareNumeric(x[i] as string, y[i] as string);
    if (d !== 0) return d;
  }
  const pa = x[4];
  const pb = y[4];
  // A pre-release comes before its release: 1.0.0-rc.1 < 1.0.0.
  if (pa === undefined || pb === undefined)
    return (pa === undefined ? 1 : 0) - (pb === undefined ? 1 : 0);
  const ia = pa.split('.');
  const ib = pb.split('.');
  for (let i = 0; i < Math.min(ia.length, ib.length); i += 1) {
    const d = compareIdentifier(ia[i] as string, ib[i] as string);
    if (d !== 0) return d;
  }
  return Math.sign(ia.length - ib.length);
}

const NUMERIC = /^\d+$/;

/** Digits only, no leading zeros (the grammar guarantees it): longer is larger. */
function compareNumeric(a: string, b: string): number {
  if (a.length !== b.length) return Math.sign(a.length - b.length);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Numeric identifiers compare as numbers and before alphanumeric ones, which compare in ASCII order. */
function compareIdentifier(a: string, b: string): number {
  const na = NUMERIC.test(a);
  const nb = NUMERIC.test(b);
  if (na && nb) return compareNumeric(a, b);
  if (na !== nb) return na ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

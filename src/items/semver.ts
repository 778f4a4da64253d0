/**
 * A semantic version exactly as written (semver.org 2.0.0 grammar): no leading
 * `v`, no spaces, no leading zeros, optional pre-release and build parts.
 * A regex instead of the `semver` package keeps CLI start-up light.
 */
const SEMVER_RE =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** True when `value` is a semantic version string. */
export function isSemver(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 256 && SEMVER_RE.test(value);
}

/**
 * One semver for everyone (issue 12): every version isSemver accepts is one
 * the `semver` package parses (no throw later) and orders the same way.
 */
import fc from 'fast-check';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { compareSemver, isSemver } from '../../src/items/index.js';

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const numberArb = fc.oneof(
  fc.integer({ min: 0, max: 20 }).map(String),
  fc.bigInt({ min: 0n, max: SAFE + 10n }).map(String),
  fc.bigInt({ min: SAFE - 3n, max: SAFE + 3n }).map(String),
  fc.bigInt({ min: 0n, max: 10n ** 25n }).map(String),
);
const identArb = fc.oneof(numberArb, fc.stringMatching(/^[0-9A-Za-z-]{1,6}$/));
const versionArb = fc
  .tuple(
    numberArb,
    numberArb,
    numberArb,
    fc.option(fc.array(identArb, { minLength: 1, maxLength: 3 }), { nil: undefined }),
    fc.option(fc.array(fc.stringMatching(/^[0-9A-Za-z-]{1,5}$/), { minLength: 1, maxLength: 2 }), {
      nil: undefined,
    }),
  )
  .map(
    ([a, b, c, pre, build]) =>
      `${a}.${b}.${c}${pre === undefined ? '' : `-${pre.join('.')}`}${build === undefined ? '' : `+${build.join('.')}`}`,
  );
const safeNumbers = (v: string): boolean =>
  (v.split('+')[0] ?? '')
    .split(/[.-]/)
    .filter((p) => /^\d+$/.test(p))
    .every((p) => BigInt(p) <= SAFE);

describe('isSemver() and the semver package', () => {
  it('accepts only versions semver parses, and agrees on all in its safe range', () => {
    fc.assert(
      fc.property(versionArb, (v) => {
        const ours = isSemver(v);
        const theirs = semver.parse(v) !== null;
        if (ours) expect(theirs, v).toBe(true);
        if (safeNumbers(v)) expect(ours, v).toBe(theirs);
      }),
      { numRuns: 2000 },
    );
  });

  it('never accepts what semver throws on', () => {
    fc.assert(
      fc.property(fc.oneof(versionArb, fc.string({ maxLength: 30 })), (v) => {
        if (isSemver(v)) expect(() => new semver.SemVer(v)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it('orders versions exactly as semver.compare does', () => {
    const accepted = versionArb.filter((v) => isSemver(v));
    fc.assert(
      fc.property(accepted, accepted, (a, b) => {
        expect(Math.sign(compareSemver(a, b)), `${a} vs ${b}`).toBe(semver.compare(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses numbers past Number.MAX_SAFE_INTEGER', () => {
    expect(isSemver('99999999999999999999.0.0')).toBe(false);
    expect(isSemver('9007199254740991.0.0')).toBe(true);
    expect(isSemver('9007199254740992.0.0')).toBe(false);
    expect(isSemver('1.0.0-rc.99999999999999999999')).toBe(false);
    expect(isSemver('1.0.0-rc.9007199254740991')).toBe(true);
    expect(isSemver(`1.0.0-${'a'.repeat(250)}`)).toBe(true);
    expect(isSemver(`1.0.0-${'a'.repeat(251)}`)).toBe(false);
  });
});

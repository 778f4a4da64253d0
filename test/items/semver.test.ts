import { describe, expect, it } from 'vitest';
import { compareSemver } from '../../src/items/index.js';

describe('compareSemver()', () => {
  it('orders by semver precedence (semver.org §11 example chain)', () => {
    const ordered = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.9.0',
      '1.10.0',
      '2.0.0',
      '10.0.0',
    ];
    for (let i = 0; i + 1 < ordered.length; i += 1) {
      const [a, b] = [ordered[i] as string, ordered[i + 1] as string];
      expect(compareSemver(a, b), `${a} < ${b}`).toBeLessThan(0);
      expect(compareSemver(b, a), `${b} > ${a}`).toBeGreaterThan(0);
    }
  });

  it('ignores build metadata', () => {
    expect(compareSemver('1.0.0+a', '1.0.0+b')).toBe(0);
    expect(compareSemver('1.0.0', '1.0.0')).toBe(0);
  });

  it('throws for a version that is not semver', () => {
    expect(() => compareSemver('1.0', '1.0.0')).toThrow(TypeError);
    expect(() => compareSemver('1.0.0', 'v1.0.0')).toThrow(TypeError);
  });
});

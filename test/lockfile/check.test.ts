import { describe, expect, it } from 'vitest';
import { compareDeps, type VerifiedDeps } from '../../src/lockfile/index.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('compareDeps()', () => {
  it('names changed, added and removed files in code-point order', () => {
    const pinned: VerifiedDeps = {
      anchorPath: '.',
      scope: 'anchor',
      files: { '\u{1f600}.py': `sha256:${A}`, 'b.py': `sha256:${A}` },
    };
    const current = new Map([
      ['\u{1f600}.py', B],
      ['\uff5e.py', A],
    ]);
    const found = compareDeps(pinned, current).map((m) => [m.subject, m.kind]);
    // UTF-16 `<` would put the astral name (0xD83D…) before U+FF5E.
    expect(found).toEqual([
      ['b.py', 'dep-removed'],
      ['\uff5e.py', 'dep-added'],
      ['\u{1f600}.py', 'dep-changed'],
    ]);
  });
});

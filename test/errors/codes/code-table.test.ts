import { describe, expect, it } from 'vitest';
import { mergeCodeTables } from '../../../src/errors/codes/code-table.js';

const USAGE = { A_ONE: { class: 'usage', hint: 'the first' } } as const;
const FAILURE = {
  B_ONE: { class: 'failure', hint: 'the second' },
  B_TWO: { class: 'failure', hint: 'the third' },
} as const;

describe('mergeCodeTables()', () => {
  it('keeps every code of every table, in table order', () => {
    const merged = mergeCodeTables([USAGE, FAILURE]);
    expect(Object.keys(merged)).toEqual(['A_ONE', 'B_ONE', 'B_TWO']);
    expect(merged.B_TWO).toBe(FAILURE.B_TWO);
  });

  it('refuses a code that two tables define, at compile time and at load', () => {
    const again = { B_TWO: { class: 'integrity', hint: 'a second meaning' } } as const;
    // @ts-expect-error -- the type names the shared code: "B_TWO is in two tables".
    expect(() => mergeCodeTables([USAGE, FAILURE, again])).toThrow(
      'Cannot merge the error-code tables: B_TWO is in two of them',
    );
  });
});

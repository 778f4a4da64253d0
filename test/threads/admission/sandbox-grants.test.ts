import { describe, expect, it } from 'vitest';
import { threadSandboxGrants } from '../../../src/threads/admission/sandbox-grants.js';

describe('threadSandboxGrants()', () => {
  it('fills {input:name} with one plain path segment', () => {
    expect(
      threadSandboxGrants(
        { write: ['apps/{input:name}/**'], network: false },
        { name: 'todo' },
        undefined,
        'apps/x/build',
      ),
    ).toEqual({ write: ['apps/todo/**'], network: false });
  });

  it.each([['../..'], ['a/b'], ['..'], [''], [3], [undefined]])(
    'refuses an input %j that would not be one segment (INPUTS_INVALID): a placeholder never widens',
    (value) => {
      expect(() =>
        threadSandboxGrants(
          { write: ['apps/{input:name}/**'] },
          value === undefined ? {} : { name: value },
          undefined,
          'apps/x/build',
        ),
      ).toThrow(expect.objectContaining({ code: 'INPUTS_INVALID' }));
    },
  );

  it('meets the caller’s bound: a child is never wider than its parent', () => {
    const parent = { write: ['apps/todo/**'], network: false };
    // The child asks for the whole of apps/ and the network: it keeps the parent's.
    expect(
      threadSandboxGrants({ write: ['apps/**'], network: true }, {}, parent, 'apps/child'),
    ).toEqual({ write: ['apps/todo/**'], network: false });
    // A child that says nothing inherits the parent's bound.
    expect(threadSandboxGrants(undefined, {}, parent, 'apps/child')).toEqual(parent);
    // A narrower child narrows further.
    expect(threadSandboxGrants({ write: ['apps/todo/src/**'] }, {}, parent, 'apps/child')).toEqual({
      write: ['apps/todo/src/**'],
      network: false,
    });
  });

  it('takes daemon away (a directive’s daemon="false"), and a child never gets it back', () => {
    const parent = threadSandboxGrants({ daemon: false }, {}, undefined, 'apps/x');
    expect(parent).toEqual({ daemon: false });
    expect(threadSandboxGrants({ daemon: true }, {}, parent ?? undefined, 'apps/child')).toEqual({
      daemon: false,
    });
  });

  it('is null when neither narrows', () => {
    expect(threadSandboxGrants(undefined, {}, undefined, 'apps/x')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/errors/index.js';
import {
  allowed,
  authorityOf,
  compileCaps,
  narrowAuthority,
  operatorAuthority,
  parseCapability,
  requireAllowed,
} from '../../src/capabilities/index.js';
import { thrown } from './thrown.js';

const caps = (...list: string[]) => list.map((c) => parseCapability(c));

describe('operatorAuthority()', () => {
  it('allows every verb on every type and says so', () => {
    const op = operatorAuthority();
    expect(op.source).toBe('operator');
    for (const verb of ['execute', 'search', 'load', 'sign'] as const)
      for (const type of ['tool', 'directive', 'knowledge'] as const)
        expect(allowed(op.caps, verb, type, 'any/id')).toBe(true);
    expect(op.describe()).toBe('operator authority holding everything');
  });
});

describe('narrowAuthority()', () => {
  it('is the intersection of the base and the caps, never wider than the base', () => {
    const base = authorityOf(compileCaps(caps('rye.execute.tool.web/*')), 'ceiling');
    const narrowed = narrowAuthority(base, caps('rye.execute.tool.*', 'rye.sign.tool.*'), 'token');
    expect(narrowed.source).toBe('token');
    expect(allowed(narrowed.caps, 'execute', 'tool', 'web/x')).toBe(true);
    expect(allowed(narrowed.caps, 'execute', 'tool', 'other/x')).toBe(false);
    expect(allowed(narrowed.caps, 'sign', 'tool', 'web/x')).toBe(false);
    expect(narrowAuthority(operatorAuthority(), caps('rye.load.knowledge.kb/*')).source).toBe(
      'caps',
    );
  });
});

describe('requireAllowed()', () => {
  it('returns quietly when the call is allowed', () => {
    const a = authorityOf(compileCaps(caps('rye.execute.tool.web/*')), 'thread');
    expect(() => requireAllowed(a, 'execute', 'tool', 'web/x')).not.toThrow();
    expect(() => requireAllowed(a, 'load', 'tool', 'web/x')).not.toThrow();
  });

  it('throws CAPABILITY_DENIED (exit 3) naming the capability needed and what was held', () => {
    const a = authorityOf(
      compileCaps(caps('rye.execute.tool.web/*', 'rye.search.knowledge.*')),
      'thread',
    );
    const error = thrown(() => requireAllowed(a, 'execute', 'tool', 'rye/bash/bash'));
    expect(error.code).toBe('CAPABILITY_DENIED');
    expect(exitCodeFor(error.code)).toBe(3);
    expect(error.message).toBe(
      'Cannot execute tool "rye/bash/bash": it needs rye.execute.tool.rye/bash/bash, and the call runs under thread authority holding rye.execute.tool.web/*, rye.search.knowledge.*',
    );
    expect(error.details).toEqual({
      required: 'rye.execute.tool.rye/bash/bash',
      held: ['rye.execute.tool.web/*', 'rye.search.knowledge.*'],
      source: 'thread',
    });
  });

  it('summarises a long held list and names an empty one', () => {
    const many = caps(...Array.from({ length: 12 }, (_, i) => `rye.load.knowledge.k${i}`));
    const a = authorityOf(compileCaps(many), 'caps');
    expect(thrown(() => requireAllowed(a, 'sign', 'tool', 'x')).message).toMatch(/and 4 more$/);
    const none = authorityOf(compileCaps([]), 'token');
    const error = thrown(() => requireAllowed(none, 'load', 'tool', 'x'));
    expect(error.message).toMatch(/token authority holding nothing/);
    expect(error.details['held']).toEqual([]);
  });

  it('refuses an invalid id with ITEM_ID_INVALID before any capability check, even for the operator', () => {
    for (const id of ['a/../b', 'a.b', '/etc/passwd', 'a\u0000'])
      expect(thrown(() => requireAllowed(operatorAuthority(), 'execute', 'tool', id)).code).toBe(
        'ITEM_ID_INVALID',
      );
  });
});

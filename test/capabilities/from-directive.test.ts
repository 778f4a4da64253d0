import { describe, expect, it } from 'vitest';
import {
  allowed,
  capsFromDirective,
  formatCapability,
  patternOfValue,
  type RawPermission,
  type RawPermissions,
} from '../../src/capabilities/index.js';
import { thrown } from './thrown.js';

function raw(
  permissions: RawPermission[],
  flags: Partial<Omit<RawPermissions, 'permissions'>> = {},
): RawPermissions {
  return { permissions, everything: false, acknowledgeUnrestricted: false, ...flags };
}

function strings(list: readonly { verb: string; type: string; pattern: string }[]): string[] {
  return list.map((c) => formatCapability(c as Parameters<typeof formatCapability>[0]));
}

describe('capsFromDirective()', () => {
  it('turns every dot of a dot-form value into a slash', () => {
    const { caps } = capsFromDirective(
      raw([
        { verb: 'execute', type: 'tool', value: 'rye.file-system.*' },
        { verb: 'execute', type: 'tool', value: 'rye.core.runtimes.node_runtime' },
        { verb: 'load', type: 'knowledge', value: 'react-patterns' },
      ]),
    );
    expect(strings(caps)).toEqual([
      'rye.execute.tool.rye/core/runtimes/node_runtime',
      'rye.execute.tool.rye/file-system/*',
      'rye.load.knowledge.react-patterns',
    ]);
  });

  it('passes slash text unchanged and reads * as every id', () => {
    expect(patternOfValue('apps/web/*')).toBe('apps/web/*');
    expect(patternOfValue('*')).toBe('*');
    expect(patternOfValue('a.b.c')).toBe('a/b/c');
    const { caps } = capsFromDirective(raw([{ verb: 'search', type: 'tool', value: ' apps/* ' }]));
    expect(strings(caps)).toEqual(['rye.search.tool.apps/*']);
  });

  it('reads <execute>*</execute> (type *) as the verb on all three types', () => {
    const { caps, set } = capsFromDirective(raw([{ verb: 'execute', type: '*', value: '*' }]));
    expect(strings(caps)).toEqual([
      'rye.execute.directive.*',
      'rye.execute.knowledge.*',
      'rye.execute.tool.*',
    ]);
    expect(allowed(set, 'load', 'knowledge', 'x')).toBe(true);
    expect(allowed(set, 'search', 'knowledge', 'x')).toBe(false);
  });

  it('moves sign grants to dropped without <acknowledge risk="unrestricted"/>', () => {
    const perms = [
      { verb: 'sign', type: 'tool', value: 'apps.*' },
      { verb: 'execute', type: 'tool', value: 'apps.*' },
    ];
    const plain = capsFromDirective(raw(perms));
    expect(strings(plain.caps)).toEqual(['rye.execute.tool.apps/*']);
    expect(strings(plain.dropped)).toEqual(['rye.sign.tool.apps/*']);
    expect(allowed(plain.set, 'sign', 'tool', 'apps/x')).toBe(false);
    const acknowledged = capsFromDirective(raw(perms, { acknowledgeUnrestricted: true }));
    expect(strings(acknowledged.caps)).toEqual(['rye.execute.tool.apps/*', 'rye.sign.tool.apps/*']);
    expect(acknowledged.dropped).toEqual([]);
  });

  it('reads <permissions>*</permissions> as everything, its sign grants dropped unless acknowledged', () => {
    const everything = capsFromDirective(raw([], { everything: true }));
    expect(strings(everything.dropped)).toEqual([
      'rye.sign.directive.*',
      'rye.sign.knowledge.*',
      'rye.sign.tool.*',
    ]);
    expect(allowed(everything.set, 'execute', 'directive', 'x/y')).toBe(true);
    expect(allowed(everything.set, 'search', 'tool', 'x/y')).toBe(true);
    expect(allowed(everything.set, 'sign', 'tool', 'x/y')).toBe(false);
    const acknowledged = capsFromDirective(
      raw([], { everything: true, acknowledgeUnrestricted: true }),
    );
    expect(allowed(acknowledged.set, 'sign', 'tool', 'x/y')).toBe(true);
    expect(acknowledged.dropped).toEqual([]);
  });

  it('gives the empty set for no permissions (fail closed)', () => {
    const { caps, set, dropped } = capsFromDirective(raw([]));
    expect(caps).toEqual([]);
    expect(dropped).toEqual([]);
    expect(allowed(set, 'load', 'knowledge', 'x')).toBe(false);
  });

  it('refuses unknown verbs and types, templates and bad ids, listing every problem at once', () => {
    const error = thrown(() =>
      capsFromDirective(
        raw([
          { verb: 'run', type: 'tool', value: 'x' },
          { verb: 'execute', type: 'tools', value: 'x' },
          { verb: 'execute', type: 'tool', value: 'apps.{input:name}.*' },
          { verb: 'execute', type: 'tool', value: 'a/b.c' },
          { verb: 'load', type: 'tool', value: 'a..b' },
          { verb: 'load', type: 'tool', value: 'a?' },
          { verb: 'load', type: 'tool', value: '' },
          { verb: 'execute', type: 'tool', value: 'fine.one' },
        ]),
      ),
    );
    expect(error.code).toBe('CAPABILITY_INVALID');
    const issues = error.details['issues'] as string[];
    expect(issues).toHaveLength(7);
    expect(issues[0]).toMatch(/permission 1 <run>: unknown verb "run"/);
    expect(issues[1]).toMatch(/unknown item type "tools"/);
    expect(issues[2]).toMatch(/un-interpolated template/);
    expect(issues[3]).toMatch(/contains "\."/);
    expect(issues[4]).toMatch(/empty path segment/);
    expect(issues[5]).toMatch(/not a wildcard/);
    expect(issues[6]).toMatch(/empty/);
    expect(error.message).toMatch(/7 problems/);
  });
});

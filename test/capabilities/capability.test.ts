import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatCapability,
  makeCapability,
  parseCapability,
  tryParseCapability,
} from '../../src/capabilities/index.js';
import { thrown } from './thrown.js';

describe('parseCapability()', () => {
  it('splits at the first three dots; the pattern keeps its slashes', () => {
    expect(parseCapability('rye.execute.tool.rye/file-system/*')).toEqual({
      verb: 'execute',
      type: 'tool',
      pattern: 'rye/file-system/*',
    });
    expect(parseCapability('rye.search.knowledge.*')).toEqual({
      verb: 'search',
      type: 'knowledge',
      pattern: '*',
    });
    expect(parseCapability('rye.sign.directive.apps/build')).toEqual({
      verb: 'sign',
      type: 'directive',
      pattern: 'apps/build',
    });
  });

  it('refuses unknown verbs and types, bad patterns and other shapes with CAPABILITY_INVALID naming the string and why', () => {
    const cases: [string, RegExp][] = [
      ['rye.run.tool.x', /unknown verb "run"/],
      ['rye.execute.tools.x', /unknown item type "tools"/],
      ['rye.execute.*.x', /unknown item type "\*"/],
      ['rye.execute.tool', /expected rye\.<verb>\.<type>\.<pattern>/],
      ['execute.tool.x', /does not start with "rye\."/],
      ['RYE.execute.tool.x', /does not start with "rye\."/],
      ['rye.execute.tool.', /empty/],
      ['rye.execute.tool.a.b', /contains "\."/],
      ['rye.execute.tool.apps/{input:name}', /un-interpolated template/],
      ['rye.execute.tool.a?', /not a wildcard/],
      ['rye.execute.tool.a/*/b', /last segment/],
      ['rye.load.tool.../x', /not an item id/],
      [`rye.load.tool.${'a'.repeat(700)}`, /longer than 600/],
    ];
    for (const [text, why] of cases) {
      const error = thrown(() => parseCapability(text));
      expect(error.code, text).toBe('CAPABILITY_INVALID');
      expect(error.message, text).toMatch(why);
      expect(error.message, text).toContain(`Cannot use capability "${text.slice(0, 40)}`);
      expect(tryParseCapability(text), text).toBeUndefined();
    }
  });

  it('shows control characters in the refused string as ?', () => {
    const error = thrown(() => parseCapability('rye.execute.tool.a\nb'));
    expect(error.message).toContain('"rye.execute.tool.a?b"');
  });

  it('round-trips with formatCapability() (property)', () => {
    const segment = fc.stringMatching(/^[a-z0-9_][a-z0-9_+@-]{0,5}$/);
    const pattern = fc.oneof(
      fc.constant('*'),
      fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/')),
      fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => `${s.join('/')}/*`),
    );
    const cap = fc.record({
      verb: fc.constantFrom('execute', 'search', 'load', 'sign'),
      type: fc.constantFrom('tool', 'directive', 'knowledge'),
      pattern,
    });
    fc.assert(
      fc.property(cap, (c) => {
        const text = formatCapability(makeCapability(c.verb, c.type, c.pattern));
        expect(text).toBe(`rye.${c.verb}.${c.type}.${c.pattern}`);
        expect(parseCapability(text)).toEqual(c);
      }),
    );
  });
});

describe('makeCapability()', () => {
  it('checks the structured form like the string form', () => {
    expect(thrown(() => makeCapability('execute', 'tool', 'a/*/b')).code).toBe(
      'CAPABILITY_INVALID',
    );
    expect(thrown(() => makeCapability('exec', 'tool', 'x')).message).toMatch(/unknown verb/);
  });
});

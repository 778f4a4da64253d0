import { describe, expect, it } from 'vitest';
import {
  EMPTY_CAP_SET,
  allowed,
  allowedViaChain,
  capStrings,
  compileCaps,
  parseCapability,
  type CapSet,
} from '../../src/capabilities/index.js';

function set(...caps: string[]): CapSet {
  return compileCaps(caps.map((c) => parseCapability(c)));
}

const VERBS = ['execute', 'search', 'load', 'sign'] as const;
const TYPES = ['tool', 'directive', 'knowledge'] as const;

describe('compileCaps() / allowed()', () => {
  it('fails closed: an empty set allows nothing', () => {
    for (const verb of VERBS)
      for (const type of TYPES) {
        expect(allowed(EMPTY_CAP_SET, verb, type, 'x')).toBe(false);
        expect(allowed(compileCaps([]), verb, type, 'a/b/c')).toBe(false);
      }
  });

  it('allows exact ids, prefixes at any depth below the slash, and * for its verb and type only', () => {
    const s = set(
      'rye.execute.tool.web/scraper',
      'rye.execute.tool.rye/file-system/*',
      'rye.search.knowledge.*',
    );
    expect(allowed(s, 'execute', 'tool', 'web/scraper')).toBe(true);
    expect(allowed(s, 'execute', 'tool', 'web/scraper2')).toBe(false);
    expect(allowed(s, 'execute', 'tool', 'web/scraper/x')).toBe(false);
    expect(allowed(s, 'execute', 'tool', 'rye/file-system/fs_read')).toBe(true);
    expect(allowed(s, 'execute', 'tool', 'rye/file-system/deep/er/x')).toBe(true);
    expect(allowed(s, 'execute', 'tool', 'rye/file-system')).toBe(false);
    expect(allowed(s, 'execute', 'tool', 'rye/file-systems/x')).toBe(false);
    expect(allowed(s, 'execute', 'directive', 'web/scraper')).toBe(false);
    expect(allowed(s, 'search', 'knowledge', 'any/thing')).toBe(true);
    expect(allowed(s, 'search', 'tool', 'web/scraper')).toBe(false);
    expect(allowed(s, 'sign', 'tool', 'web/scraper')).toBe(false);
  });

  it('never lets arc/* match arcane, even beside other prefixes', () => {
    const s = set('rye.execute.tool.arc/*', 'rye.execute.tool.ar/x', 'rye.execute.tool.arcz/*');
    expect(allowed(s, 'execute', 'tool', 'arcane')).toBe(false);
    expect(allowed(s, 'execute', 'tool', 'arcane/x')).toBe(false);
    expect(allowed(s, 'execute', 'tool', 'arc')).toBe(false);
    expect(allowed(s, 'execute', 'tool', 'arc/x')).toBe(true);
    expect(allowed(s, 'execute', 'tool', 'arcz/y')).toBe(true);
    expect(allowed(s, 'execute', 'tool', 'arcy/y')).toBe(false);
  });

  it('execute implies load of the same pattern, and nothing else', () => {
    const s = set('rye.execute.tool.web/*');
    expect(allowed(s, 'load', 'tool', 'web/x')).toBe(true);
    expect(allowed(s, 'load', 'directive', 'web/x')).toBe(false);
    expect(allowed(s, 'search', 'tool', 'web/x')).toBe(false);
    expect(allowed(s, 'sign', 'tool', 'web/x')).toBe(false);
    const load = set('rye.load.tool.web/*');
    expect(allowed(load, 'execute', 'tool', 'web/x')).toBe(false);
    const sign = set('rye.sign.tool.*');
    expect(allowed(sign, 'execute', 'tool', 'x')).toBe(false);
    expect(allowed(sign, 'load', 'tool', 'x')).toBe(false);
  });

  it('never allows an id parseItemId refuses, even under *', () => {
    const s = set('rye.execute.tool.*', 'rye.load.tool.a/*');
    for (const id of ['a/../b', '../x', '/etc/passwd', 'a\\b', 'a//b', 'a/b.c', 'a/\u0000', ''])
      for (const verb of ['execute', 'load'] as const)
        expect(allowed(s, verb, 'tool', id), `${verb} ${JSON.stringify(id)}`).toBe(false);
  });

  it('keeps a minimal sorted list: duplicates, covered grants and implied loads dropped', () => {
    const s = set(
      'rye.load.tool.web/x',
      'rye.execute.tool.web/*',
      'rye.execute.tool.web/a/*',
      'rye.execute.tool.web/b',
      'rye.execute.tool.web/*',
      'rye.load.tool.lib/*',
      'rye.search.directive.*',
      'rye.search.directive.x',
    );
    expect(capStrings(s)).toEqual([
      'rye.execute.tool.web/*',
      'rye.load.tool.lib/*',
      'rye.search.directive.*',
    ]);
  });
});

describe('allowedViaChain()', () => {
  const chain = [
    'apps/test_runner',
    'rye/core/runtimes/node_runtime',
    'rye/core/primitives/subprocess',
  ];

  it('lets a grant naming a runtime cover tools whose verified chain passes through it', () => {
    const s = set('rye.execute.tool.rye/core/runtimes/node_runtime');
    expect(allowed(s, 'execute', 'tool', 'apps/test_runner')).toBe(false);
    expect(allowedViaChain(s, chain, 'apps/test_runner')).toBe(true);
    const primitive = set('rye.execute.tool.rye/core/primitives/*');
    expect(allowedViaChain(primitive, chain, 'apps/test_runner')).toBe(true);
  });

  it('never covers tools under rye/ that way: they need their own grant', () => {
    const s = set('rye.execute.tool.rye/core/runtimes/node_runtime');
    const systemChain = ['rye/core/bundler/bundler', ...chain.slice(1)];
    expect(allowedViaChain(s, systemChain, 'rye/core/bundler/bundler')).toBe(false);
    const own = set('rye.execute.tool.rye/core/bundler/bundler');
    expect(allowedViaChain(own, systemChain, 'rye/core/bundler/bundler')).toBe(true);
  });

  it('checks the entry first and fails closed on a chain not starting with it', () => {
    const s = set('rye.execute.tool.rye/core/runtimes/node_runtime');
    expect(allowedViaChain(s, chain.slice(1), 'apps/test_runner')).toBe(false);
    expect(allowedViaChain(s, [], 'apps/test_runner')).toBe(false);
    expect(allowedViaChain(set('rye.execute.tool.apps/test_runner'), [], 'apps/test_runner')).toBe(
      true,
    );
    expect(allowedViaChain(EMPTY_CAP_SET, chain, 'apps/test_runner')).toBe(false);
  });

  it('does not apply to load, search or sign grants of the runtime', () => {
    const s = set('rye.load.tool.rye/core/runtimes/node_runtime', 'rye.sign.tool.rye/*');
    expect(allowedViaChain(s, chain, 'apps/test_runner')).toBe(false);
  });

  it('refuses an invalid entry id even when a chain element is granted', () => {
    const s = set('rye.execute.tool.rye/core/runtimes/node_runtime');
    const bad = ['apps/../x', ...chain.slice(1)];
    expect(allowedViaChain(s, bad, 'apps/../x')).toBe(false);
  });
});

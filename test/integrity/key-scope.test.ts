import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../src/errors/index.js';
import { VerifiedFileCache } from '../../src/executor/deps/verified-file-cache.js';
import {
  formatTrustToml,
  parseKeyScope,
  parseTrustToml,
  scopePatternCovers,
  scopePatternProblem,
  scopesCover,
  signText,
  trustSetOf,
  verifyText,
  type KeyScope,
  type TrustSet,
} from '../../src/integrity/index.js';
import { makeSigner } from '../helpers/keys.js';

const TOOL = '__version__ = "1.0.0"\nprint("hi")\n';

function scopedTrust(scope: KeyScope) {
  const { signer, trust, publicKeyPem } = makeSigner('carol');
  const key = trust.get(signer.fingerprint);
  if (key === undefined) throw new Error('no key');
  const scoped: TrustSet = trustSetOf([{ ...key, scopes: [scope] }]);
  const text = signText(TOOL, { itemType: 'tool', extension: '.py', signer }).text;
  return { signer, key, scoped, text, publicKeyPem };
}

describe('scope patterns', () => {
  it('covers an exact id, one level below prefix/*, any depth below prefix/**', () => {
    const cases: [string, string, boolean][] = [
      ['tools/x', 'tools/x', true],
      ['tools/x', 'tools/xy', false],
      ['tools/x', 'tools/x/y', false],
      ['apps/*', 'apps/todo', true],
      ['apps/*', 'apps/todo/run', false],
      ['apps/*', 'apps', false],
      ['apps/*', 'appsx/todo', false],
      ['apps/**', 'apps/todo/run/deep', true],
      ['apps/**', 'apps', false],
      ['apps/**', 'appsx/y', false],
      ['*', 'top', true],
      ['*', 'a/b', false],
      ['**', 'a/b/c', true],
    ];
    for (const [pattern, id, covered] of cases) {
      expect(scopePatternProblem(pattern), pattern).toBeUndefined();
      expect(scopePatternCovers(pattern, id), `${pattern} ~ ${id}`).toBe(covered);
    }
  });

  it('refuses wildcards inside a segment or before the end, ?, .., empty and absolute patterns', () => {
    for (const bad of ['a*/b', 'a/*/b', 'a/b*', 'a/?', '../x', 'a/../b', '/a', 'a//b', '', 'a/']) {
      expect(scopePatternProblem(bad), bad).toBeDefined();
    }
  });

  it('refuses a dotted segment, as item ids do', () => {
    expect(scopePatternProblem('a.b/*')).toMatch(/not an item id segment/);
  });

  it('parseKeyScope() refuses empty lists, non-strings and unknown item types', () => {
    for (const [scope, types] of [
      [[], undefined],
      [undefined, []],
      ['apps/*', undefined],
      [[1], undefined],
      [undefined, ['plan']],
      [['a/*/b'], undefined],
    ] as const) {
      let code: string | undefined;
      try {
        parseKeyScope(scope, types, 'k.toml');
      } catch (error) {
        code = isRyeError(error) ? error.code : 'other';
      }
      expect(code, JSON.stringify([scope, types])).toBe('TRUST_FILE_INVALID');
    }
    expect(parseKeyScope(undefined, undefined, 'k.toml')).toBeUndefined();
    expect(parseKeyScope(['a/*', 'a/*'], ['bundle'], 'k.toml')).toEqual({
      ids: ['a/*'],
      itemTypes: ['bundle'],
    });
  });

  it('scopesCover(): unrestricted covers all; a restricted key covers nothing without a subject', () => {
    const scope: KeyScope = { ids: ['apps/*'], itemTypes: ['tool'] };
    expect(scopesCover(undefined, null)).toBe(true);
    expect(scopesCover([scope], { itemId: 'apps/x', itemType: 'tool' })).toBe(true);
    expect(scopesCover([scope], { itemId: 'apps/x', itemType: 'directive' })).toBe(false);
    expect(scopesCover([scope], null)).toBe(false);
    // Several restrictions: every one must cover.
    const narrower: KeyScope = { ids: ['apps/x'], itemTypes: null };
    expect(scopesCover([scope, narrower], { itemId: 'apps/y', itemType: 'tool' })).toBe(false);
  });
});

describe('trusted-key TOML with a scope', () => {
  it('round-trips scope and item_types; a key without them stays unrestricted', () => {
    const { key } = scopedTrust({ ids: ['apps/*'], itemTypes: null });
    const scoped = formatTrustToml({ ...key, scopes: [{ ids: ['apps/*'], itemTypes: ['tool'] }] });
    expect(scoped).toContain('scope = ["apps/*"]\nitem_types = ["tool"]\n');
    expect(parseTrustToml(scoped, 'k.toml').scopes).toEqual([
      { ids: ['apps/*'], itemTypes: ['tool'] },
    ]);
    expect(parseTrustToml(formatTrustToml(key), 'k.toml').scopes).toBeUndefined();
  });

  it('a malformed scope makes the whole file invalid, never unrestricted', () => {
    const { key } = scopedTrust({ ids: ['x'], itemTypes: null });
    const text = formatTrustToml(key).replace('\n[public_key]', 'scope = "apps/*"\n\n[public_key]');
    expect(() => parseTrustToml(text, 'k.toml')).toThrow(/scope must be a list of strings/);
  });
});

describe('verifyText() with a scoped key', () => {
  it('verifies inside the scope and is untrusted_key outside it, naming the scope', () => {
    const { scoped, text } = scopedTrust({ ids: ['apps/*'], itemTypes: ['tool'] });
    const check = (itemId: string, itemType: 'tool' | 'knowledge' = 'tool') =>
      verifyText(text, {
        itemType: 'tool',
        extension: '.py',
        trust: scoped,
        subject: { itemId, itemType },
      });
    expect(check('apps/x').ok).toBe(true);
    const outside = check('other/tool');
    expect(outside).toMatchObject({ ok: false, verdict: 'untrusted_key' });
    expect(outside.code).toBe('INTEGRITY_UNTRUSTED_KEY');
    expect(outside.message).toContain(
      'trusted only for ids apps/*; types tool, not tool other/tool',
    );
    expect(check('apps/x', 'knowledge').code).toBe('INTEGRITY_UNTRUSTED_KEY');
    const unnamed = verifyText(text, { itemType: 'tool', extension: '.py', trust: scoped });
    expect(unnamed.code).toBe('INTEGRITY_UNTRUSTED_KEY');
    expect(unnamed.message).toContain('does not name an item');
  });

  it('a repeated fingerprint keeps every copy’s restriction: a store read first can narrow, not widen', () => {
    const { key, text } = scopedTrust({ ids: ['x'], itemTypes: null });
    const userCopy = { ...key, scopes: [{ ids: ['apps/*'], itemTypes: null }] };
    // A project copy without a scope is read first (higher precedence).
    const merged = trustSetOf([{ ...key, source: 'project' }, userCopy]);
    const subject = { itemId: 'other/tool', itemType: 'tool' as const };
    const opts = { itemType: 'tool' as const, extension: '.py', trust: merged, subject };
    expect(verifyText(text, opts).code).toBe('INTEGRITY_UNTRUSTED_KEY');
    expect(merged.get(key.fingerprint)?.source).toBe('project');
  });
});

describe('VerifiedFileCache with scopes', () => {
  it('a verdict cached for one id does not serve another id outside the key scope', () => {
    const { key, scoped } = scopedTrust({ ids: ['apps/a'], itemTypes: null });
    const cache = new VerifiedFileCache();
    cache.remember('file', {
      contentHash: 'h',
      fingerprint: key.fingerprint,
      publicKeyPem: key.publicKeyPem,
    });
    expect(cache.lookup('file', scoped, { itemId: 'apps/a', itemType: 'tool' })).toBe('h');
    expect(cache.lookup('file', scoped, { itemId: 'apps/b', itemType: 'tool' })).toBeUndefined();
    expect(cache.lookup('file', scoped)).toBeUndefined();
    // Narrowing trust takes effect at once, whatever was cached.
    const narrowed = trustSetOf([{ ...key, scopes: [{ ids: ['apps/z'], itemTypes: null }] }]);
    expect(cache.lookup('file', narrowed, { itemId: 'apps/a', itemType: 'tool' })).toBeUndefined();
  });
});

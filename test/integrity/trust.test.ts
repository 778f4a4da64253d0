import { describe, expect, it } from 'vitest';
import {
  MAX_TRUST_FILE_BYTES,
  TrustedCache,
  describeScopes,
  formatTrustToml,
  generateKeyPair,
  parseKeyScope,
  parsePublicKey,
  parseTrustToml,
  pendingKeyFor,
  scopePatternCovers,
  scopePatternProblem,
  trustSetOf,
  withPendingKeys,
  type KeyScope,
  type TrustSet,
  type TrustedEntry,
  type TrustedKey,
  type VerifySubject,
} from '../../src/integrity/index.js';

function trustedKey(owner: string, scopes?: KeyScope[]): TrustedKey {
  const info = parsePublicKey(generateKeyPair().publicKeyPem);
  return { ...info, owner, attestation: '', source: null, ...(scopes ? { scopes } : {}) };
}

const TOOLS: KeyScope = { ids: ['tools/**'], itemTypes: null };
const TYPES: KeyScope = { ids: null, itemTypes: ['tool'] };

describe('parseTrustToml() and formatTrustToml()', () => {
  it('reads a key without owner or attestation as unnamed, and writes it back', () => {
    const info = parsePublicKey(generateKeyPair().publicKeyPem);
    const text = `fingerprint = "${info.fingerprint}"\n\n[public_key]\npem = """\n${info.publicKeyPem}"""\n`;
    const key = parseTrustToml(text, 'k.toml');
    expect(key).toMatchObject({ owner: '', attestation: '', source: 'k.toml' });
    expect(key).not.toHaveProperty('scopes');
    expect(parseTrustToml(formatTrustToml(key), 'again.toml').fingerprint).toBe(info.fingerprint);
  });

  it('names only the first line of a TOML syntax error', () => {
    expect(() => parseTrustToml('fingerprint = "unterminated\n', 'k.toml')).toThrow(
      expect.objectContaining({
        code: 'TRUST_FILE_INVALID',
        message: expect.stringMatching(/^Cannot parse trusted key k\.toml: [^\n]+$/),
      }),
    );
  });

  it('refuses a text over the cap before parsing it, and fields of the wrong type', () => {
    const big = `# ${'x'.repeat(MAX_TRUST_FILE_BYTES)}\n`;
    expect(() => parseTrustToml(big, 'big.toml')).toThrow(
      expect.objectContaining({
        code: 'TRUST_FILE_INVALID',
        details: expect.objectContaining({ source: 'big.toml' }),
      }),
    );
    expect(() => parseTrustToml('fingerprint = 1\n[public_key]\npem = "x"\n', 'k.toml')).toThrow(
      expect.objectContaining({ code: 'TRUST_FILE_INVALID' }),
    );
    expect(() => parseTrustToml('fingerprint = "x"\npublic_key = "pem"\n', 'k.toml')).toThrow(
      expect.objectContaining({ code: 'TRUST_FILE_INVALID' }),
    );
  });

  it('writes one restriction as scope and item_types lines, and refuses to write two', () => {
    const key = trustedKey('ada', [{ ids: ['tools/*'], itemTypes: ['tool', 'bundle'] }]);
    const text = formatTrustToml(key);
    expect(text).toContain('scope = ["tools/*"]\nitem_types = ["tool", "bundle"]\n');
    expect(parseTrustToml(text, 'k.toml').scopes).toEqual(key.scopes);
    const merged = { ...key, scopes: [TOOLS, TYPES] };
    expect(() => formatTrustToml(merged)).toThrow(
      expect.objectContaining({
        code: 'INTERNAL_ERROR',
        details: { fingerprint: key.fingerprint },
      }),
    );
  });
});

describe('key scopes', () => {
  it('parseKeyScope() reads ids alone or item types alone, dropping duplicates', () => {
    expect(parseKeyScope(['a/*', 'a/*', 'b'], undefined, 'k')).toEqual({
      ids: ['a/*', 'b'],
      itemTypes: null,
    });
    expect(parseKeyScope(undefined, ['tool', 'tool'], 'k')).toEqual({
      ids: null,
      itemTypes: ['tool'],
    });
    expect(parseKeyScope(undefined, undefined, 'k')).toBeUndefined();
  });

  it('refuses a pattern longer than an item id can be', () => {
    expect(scopePatternProblem(`a/${'b'.repeat(511)}`)).toBe('it is longer than 512 characters');
    expect(scopePatternProblem(`a/${'b'.repeat(510)}`)).toBeUndefined();
  });

  it('describeScopes() names each restriction, or everything', () => {
    expect(describeScopes(undefined)).toBe('everything');
    expect(describeScopes([])).toBe('everything');
    expect(describeScopes([TOOLS, TYPES])).toBe('ids tools/** and types tool');
    expect(describeScopes([{ ids: ['a/*'], itemTypes: ['knowledge'] }])).toBe(
      'ids a/*; types knowledge',
    );
  });

  it('scopePatternCovers() stays right after its cache of compiled patterns fills up', () => {
    for (let i = 0; i < 1100; i += 1) expect(scopePatternCovers(`p${i}/*`, `p${i}/x`)).toBe(true);
    expect(scopePatternCovers('p0/*', 'p0/x/y')).toBe(false);
    expect(scopePatternCovers('p0/**', 'p0/x/y')).toBe(true);
  });
});

describe('trustSetOf()', () => {
  it('keeps the first copy of a fingerprint, adding the restrictions of later copies', () => {
    const key = trustedKey('first');
    const restricted = { ...key, owner: 'second', scopes: [TOOLS] };
    const unrestricted = { ...key, owner: 'third' };
    const set = trustSetOf([key, unrestricted, restricted, { ...restricted, scopes: [TYPES] }]);
    expect(set.get(key.fingerprint)).toMatchObject({ owner: 'first', scopes: [TOOLS, TYPES] });
    // A later copy without restrictions neither widens nor replaces the first.
    const narrowed = trustSetOf([restricted, unrestricted]);
    expect(narrowed.get(key.fingerprint)).toMatchObject({ owner: 'second', scopes: [TOOLS] });
  });
});

describe('pending keys', () => {
  it('remembers only keys outside the set, the first of each fingerprint, and only for that set', () => {
    const trusted = trustedKey('ada');
    const trust = trustSetOf([trusted]);
    const stranger = trustedKey('mallory').fingerprint;
    const same = withPendingKeys(trust, [
      { fingerprint: trusted.fingerprint, owner: 'ada', project: '/p' },
      { fingerprint: stranger, owner: 'mallory', project: '/p' },
      { fingerprint: stranger, owner: 'again', project: '/q' },
    ]);
    expect(same).toBe(trust);
    expect(pendingKeyFor(trust, stranger)).toEqual({
      fingerprint: stranger,
      owner: 'mallory',
      project: '/p',
    });
    expect(pendingKeyFor(trust, trusted.fingerprint)).toBeUndefined();
    expect(pendingKeyFor(trustSetOf([trusted]), stranger)).toBeUndefined();
    const none = trustSetOf([]);
    withPendingKeys(none, []);
    expect(pendingKeyFor(none, stranger)).toBeUndefined();
  });
});

class Cache extends TrustedCache<TrustedEntry> {
  lookup(key: string, trust: TrustSet, subject: VerifySubject | null): TrustedEntry | undefined {
    return this.find(key, trust, subject);
  }
}

describe('TrustedCache', () => {
  it('serves an entry only while its signer is trusted with the same key and scope', () => {
    const ada = trustedKey('ada', [TOOLS]);
    const entry = { fingerprint: ada.fingerprint, publicKeyPem: ada.publicKeyPem };
    const cache = new Cache(4);
    const tool: VerifySubject = { itemId: 'tools/x', itemType: 'tool' };
    cache.remember('a', entry);
    expect(cache.lookup('a', trustSetOf([ada]), tool)).toBe(entry);
    expect(cache.lookup('missing', trustSetOf([ada]), tool)).toBeUndefined();
    expect(cache.lookup('a', trustSetOf([]), tool)).toBeUndefined();
    expect(
      cache.lookup('a', trustSetOf([ada]), { itemId: 'apps/x', itemType: 'tool' }),
    ).toBeUndefined();
    expect(cache.lookup('a', trustSetOf([ada]), null)).toBeUndefined();
    const other = { ...trustedKey('ada'), fingerprint: ada.fingerprint };
    expect(cache.lookup('a', trustSetOf([other]), tool)).toBeUndefined();
  });

  it('drops the least recently used entry when full; a hit or a rewrite counts as a use', () => {
    const ada = trustedKey('ada');
    const trust = trustSetOf([ada]);
    const entry = { fingerprint: ada.fingerprint, publicKeyPem: ada.publicKeyPem };
    const cache = new Cache(2);
    cache.remember('a', entry);
    cache.remember('b', entry);
    expect(cache.lookup('a', trust, null)).toBe(entry); // a is now the most recent
    cache.remember('c', entry); // drops b
    expect(cache.size).toBe(2);
    expect(cache.lookup('b', trust, null)).toBeUndefined();
    cache.remember('a', entry); // a rewrite drops nothing
    expect([cache.size, cache.lookup('a', trust, null), cache.lookup('c', trust, null)]).toEqual([
      2,
      entry,
      entry,
    ]);
    const tiny = new Cache(0);
    tiny.remember('x', entry);
    tiny.remember('y', entry);
    expect([tiny.size, tiny.lookup('x', trust, null), tiny.lookup('y', trust, null)]).toEqual([
      1,
      undefined,
      entry,
    ]);
  });
});

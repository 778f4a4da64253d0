import { describe, expect, it } from 'vitest';
import { parsePublicKey } from '../../src/integrity/index.js';
import {
  assertIndexSigned,
  formatIndex,
  latestOf,
  parseIndex,
  signIndex,
  type PackageIndex,
} from '../../src/registry/index.js';
import { makeSigner } from '../helpers/keys.js';

const HASH = 'a'.repeat(64);
const INDEX: PackageIndex = {
  rye_index: 1,
  registry_fingerprint: '0123456789abcdef',
  kind: 'item',
  item_type: 'tool',
  namespace: 'alice',
  item_id: 'utils/greet',
  seq: 7,
  issued_at: '2026-01-02T03:04:05Z',
  expires_at: '2026-01-03T03:04:05Z',
  latest: '1.1.0',
  versions: [
    { version: '1.0.0', content_hash: HASH, published_at: '2026-01-01T00:00:00Z', yanked: false },
    { version: '2.0.0', content_hash: HASH, published_at: '2026-01-01T00:00:01Z', yanked: true },
    { version: '1.1.0', content_hash: HASH, published_at: '2026-01-01T00:00:02Z', yanked: false },
  ],
};

function problem(edit: (o: Record<string, unknown>) => void): string {
  const o = JSON.parse(formatIndex(INDEX)) as Record<string, unknown>;
  edit(o);
  try {
    parseIndex(JSON.stringify(o));
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'accepted';
}

describe('the signed package index', () => {
  it('formats canonically (sorted keys, no whitespace) and parses back to the same index', () => {
    const text = formatIndex(INDEX);
    expect(text.startsWith('{"expires_at":"2026-01-03T03:04:05Z","issued_at":')).toBe(true);
    expect(text).not.toMatch(/\s/);
    expect(parseIndex(text)).toEqual(INDEX);
  });

  it('latestOf() takes the highest version by semver precedence that is not yanked', () => {
    expect(latestOf(INDEX.versions)).toBe('1.1.0');
    expect(
      latestOf([
        { version: '1.0.0-rc.1', yanked: false },
        { version: '0.9.0', yanked: false },
      ]),
    ).toBe('1.0.0-rc.1');
    expect(latestOf([{ version: '1.0.0', yanked: true }])).toBeNull();
  });

  it('parseIndex() refuses what is not exactly the format', () => {
    expect(problem(() => undefined)).toBe('accepted');
    const refusals: [string, (o: Record<string, unknown>) => void][] = [
      ['an extra field', (o) => (o['extra'] = 1)],
      ['a missing field', (o) => delete o['expires_at']],
      ['another format', (o) => (o['rye_index'] = 2)],
      ['a negative seq', (o) => (o['seq'] = -1)],
      ['a fractional seq', (o) => (o['seq'] = 1.5)],
      ['a latest that is yanked', (o) => (o['latest'] = '2.0.0')],
      ['a latest that is not the highest', (o) => (o['latest'] = '1.0.0')],
      ['an expiry before issue', (o) => (o['expires_at'] = '2026-01-01T00:00:00Z')],
      ['an item without a type', (o) => (o['item_type'] = null)],
      ['a bundle with a type', (o) => (o['kind'] = 'bundle')],
      ['a bad id', (o) => (o['item_id'] = '../x')],
      [
        'a version listed twice',
        (o) => (o['versions'] = [...(o['versions'] as unknown[]), (o['versions'] as unknown[])[0]]),
      ],
      [
        'an entry with another field',
        (o) => ((o['versions'] as Record<string, unknown>[])[0]!['x'] = 1),
      ],
      [
        'a yank flag that is not boolean',
        (o) => ((o['versions'] as Record<string, unknown>[])[0]!['yanked'] = 0),
      ],
    ];
    for (const [what, edit] of refusals) expect(problem(edit), what).toBe('REGISTRY_INDEX_INVALID');
  });

  it('parseIndex() refuses non-canonical text of a valid index (one signed text, one reading)', () => {
    const text = formatIndex(INDEX);
    expect(() => parseIndex(` ${text}`)).toThrow(
      expect.objectContaining({ code: 'REGISTRY_INDEX_INVALID' }),
    );
    const reordered = JSON.stringify({ versions: INDEX.versions, ...JSON.parse(text) });
    expect(reordered).not.toBe(text);
    expect(() => parseIndex(reordered)).toThrow(
      expect.objectContaining({ code: 'REGISTRY_INDEX_INVALID' }),
    );
    const duplicated = text.replace('"seq":7', '"seq":9,"seq":7');
    expect(() => parseIndex(duplicated)).toThrow(
      expect.objectContaining({ code: 'REGISTRY_INDEX_INVALID' }),
    );
  });

  it('assertIndexSigned() accepts the signer’s key only, over the exact text', () => {
    const { signer, publicKeyPem } = makeSigner('registry');
    const other = makeSigner('other');
    const signed = signIndex(signer, INDEX);
    const key = parsePublicKey(publicKeyPem).key;
    expect(() => assertIndexSigned(key, signed.index, signed.signature)).not.toThrow();
    const refused = { code: 'REGISTRY_INDEX_SIGNATURE_INVALID' };
    const byOther = signIndex(other.signer, INDEX);
    expect(() => assertIndexSigned(key, byOther.index, byOther.signature)).toThrow(
      expect.objectContaining(refused),
    );
    const edited = signed.index.replace('"yanked":true', '"yanked":false');
    expect(() => assertIndexSigned(key, edited, signed.signature)).toThrow(
      expect.objectContaining(refused),
    );
    expect(() => assertIndexSigned(key, signed.index, 'not-base64!')).toThrow(
      expect.objectContaining(refused),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { verifyIndex, type IndexCheck } from '../../../src/registry/index.js';
import { PYTHON_TOOL } from '../../helpers/items.js';
import { itemAnswer, makeKey, signedIndexFor, type IndexOptions } from './fixtures.js';

const registry = makeKey();
const author = makeKey();
const NOW = new Date('2026-05-01T12:00:00Z');
const doc = itemAnswer({
  registry,
  author,
  itemType: 'tool',
  extension: '.py',
  text: PYTHON_TOOL('utils'),
  namespace: 'alice',
  itemId: 'utils/greet',
  version: '1.0.0',
}).doc;

function check(options: IndexOptions = {}, over: Partial<IndexCheck> = {}): IndexCheck {
  return {
    asked: { kind: 'item', itemType: 'tool', namespace: 'alice', itemId: 'utils/greet' },
    pinned: { fingerprint: registry.signer.fingerprint, publicKeyPem: registry.publicKeyPem },
    document: signedIndexFor(registry, [doc], { issuedAt: NOW, seq: 5, ...options }),
    now: NOW,
    seenSeq: null,
    registry: 'http://127.0.0.1:1',
    statePath: '/tmp/seen_indexes.json',
    ...over,
  };
}

const codeOf = (c: IndexCheck): string => {
  try {
    verifyIndex(c);
    return 'accepted';
  } catch (error) {
    return (error as { code: string }).code;
  }
};

describe('verifyIndex()', () => {
  it('accepts a fresh index of the package asked for, signed by the pinned key', () => {
    expect(verifyIndex(check())).toMatchObject({ seq: 5, latest: '1.0.0' });
    expect(codeOf(check({}, { seenSeq: 5 }))).toBe('accepted');
    expect(codeOf(check({}, { seenSeq: 4 }))).toBe('accepted');
  });

  it('refuses an index signed by another key, or edited after signing (before parsing it)', () => {
    const forged = signedIndexFor(makeKey(), [doc], { issuedAt: NOW });
    expect(codeOf(check({}, { document: forged }))).toBe('REGISTRY_INDEX_SIGNATURE_INVALID');
    const genuine = check().document;
    const edited = { ...genuine, index: genuine.index.replace('"seq":5', '"seq":9') };
    expect(codeOf(check({}, { document: edited }))).toBe('REGISTRY_INDEX_SIGNATURE_INVALID');
    const garbage = { index: 'not json at all', signature: genuine.signature };
    expect(codeOf(check({}, { document: garbage }))).toBe('REGISTRY_INDEX_SIGNATURE_INVALID');
  });

  it('refuses a genuine index of another package or naming another registry key', () => {
    const asked = {
      kind: 'item',
      itemType: 'tool',
      namespace: 'alice',
      itemId: 'utils/other',
    } as const;
    expect(codeOf(check({}, { asked }))).toBe('REGISTRY_INDEX_INVALID');
    const bundle = {
      kind: 'bundle',
      itemType: null,
      namespace: 'alice',
      itemId: 'utils/greet',
    } as const;
    expect(codeOf(check({}, { asked: bundle }))).toBe('REGISTRY_INDEX_INVALID');
    const otherFp = check({ edit: (i) => ({ ...i, registry_fingerprint: 'f'.repeat(16) }) });
    expect(codeOf(otherFp)).toBe('REGISTRY_INDEX_INVALID');
  });

  it('refuses an index at or past its expiry (freeze)', () => {
    const expiresAt = new Date(NOW.getTime() + 1000);
    expect(codeOf(check({ expiresAt }))).toBe('accepted');
    expect(codeOf(check({ expiresAt }, { now: expiresAt }))).toBe('REGISTRY_INDEX_EXPIRED');
    const old = check({ issuedAt: new Date('2026-04-01T00:00:00Z') });
    expect(codeOf(old)).toBe('REGISTRY_INDEX_EXPIRED');
  });

  it('refuses a seq lower than one verified before (rollback), saying what to do', () => {
    const c = check({ seq: 4 }, { seenSeq: 5 });
    expect(codeOf(c)).toBe('REGISTRY_INDEX_ROLLBACK');
    expect(() => verifyIndex(c)).toThrow(
      /seq 4, but seq 5 was verified here before.*\/tmp\/seen_indexes\.json/,
    );
  });
});

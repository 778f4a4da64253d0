import { describe, expect, it } from 'vitest';
import {
  assertReplaceable,
  keepCreatedAt,
  textToSign,
  type PreviousManifest,
} from '../../src/bundle/previous-manifest.js';
import type { BundleManifest, ManifestEntry } from '../../src/bundle/index.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

function manifest(
  files: Record<string, ManifestEntry>,
  bundle: Partial<BundleManifest['bundle']> = {},
): BundleManifest {
  return {
    bundle: {
      id: 'apps/x',
      version: '1.0.0',
      createdAt: '2026-02-11T00:00:00Z',
      entrypoint: null,
      description: '',
      includes: [],
      ...bundle,
    },
    files: new Map(Object.entries(files)),
  };
}
const plain = (sha256: string): ManifestEntry => ({ sha256, inlineSigned: false });
const before = (m: BundleManifest): PreviousManifest => ({ text: 'x', manifest: m, problem: null });

/** The `changed` words of the refusal to replace `old` with `next`, or [] when it is allowed. */
function changes(old: BundleManifest, next: BundleManifest): string[] {
  try {
    assertReplaceable('/p/m.yaml', next, before(old), false);
  } catch (error) {
    return (error as { details: { changed: string[] } }).details.changed;
  }
  return [];
}

describe('assertReplaceable()', () => {
  const old = manifest({ 'x/a': plain(A), 'x/b': plain(A), 'x/c': plain(A) });

  it('names what differs: ids, files added, removed and changed, in the singular or plural', () => {
    expect(
      changes(
        old,
        manifest({ 'x/a': plain(A), 'x/b': plain(A), 'x/c': plain(A) }, { id: 'apps/y' }),
      ),
    ).toEqual(['bundle id']);
    expect(changes(old, manifest({ 'x/a': plain(B), 'x/b': plain(A), 'x/c': plain(A) }))).toEqual([
      '1 file changed',
    ]);
    expect(
      changes(
        old,
        manifest({ 'x/a': plain(B), 'x/b': { sha256: A, inlineSigned: true }, 'x/c': plain(A) }),
      ),
    ).toEqual(['2 files changed']);
    expect(changes(old, manifest({ 'x/a': plain(A) }))).toEqual(['2 files removed']);
    expect(changes(old, manifest({ 'x/a': plain(A), 'x/b': plain(A) }))).toEqual([
      '1 file removed',
    ]);
    expect(
      changes(
        old,
        manifest(
          { 'x/a': plain(A), 'x/b': plain(A), 'x/c': plain(A), 'x/d': plain(A), 'x/e': plain(A) },
          { description: 'd' },
        ),
      ),
    ).toEqual(['description', '2 files added']);
    expect(
      changes(
        old,
        manifest({ 'x/a': plain(A), 'x/b': plain(A), 'x/c': plain(A) }, { createdAt: 'later' }),
      ),
    ).toEqual([]);
  });

  it('allows another version, a forced replacement and a first manifest; refuses an unreadable one', () => {
    const next = manifest({}, { version: '2.0.0' });
    expect(() => assertReplaceable('/p/m.yaml', next, before(old), false)).not.toThrow();
    expect(() => assertReplaceable('/p/m.yaml', manifest({}), before(old), true)).not.toThrow();
    expect(() => assertReplaceable('/p/m.yaml', manifest({}), null, false)).not.toThrow();
    const broken: PreviousManifest = { text: null, manifest: null, problem: 'it is binary' };
    expect(() => assertReplaceable('/p/m.yaml', next, broken, false)).toThrow(
      expect.objectContaining({
        code: 'BUNDLE_EXISTS',
        message: expect.stringContaining('cannot be read as a manifest (it is binary)'),
      }),
    );
  });
});

describe('keepCreatedAt() and textToSign()', () => {
  it('keeps the old created_at only when nothing else differs', () => {
    const old = manifest({ 'x/a': plain(A) }, { createdAt: 'old' });
    const same = manifest({ 'x/a': plain(A) }, { createdAt: 'new' });
    expect(keepCreatedAt(same, before(old)).bundle.createdAt).toBe('old');
    const other = manifest({ 'x/a': plain(B) }, { createdAt: 'new' });
    expect(keepCreatedAt(other, before(old)).bundle.createdAt).toBe('new');
    expect(keepCreatedAt(same, null)).toBe(same);
  });

  it('signs the file in place when its body is the new body, else the new body', () => {
    const body = 'bundle: {}\n';
    const signed = `# rye:signed:old line\n${body}`;
    expect(textToSign(body, { text: signed, manifest: manifest({}), problem: null })).toBe(signed);
    expect(textToSign('other: 1\n', { text: signed, manifest: manifest({}), problem: null })).toBe(
      'other: 1\n',
    );
    expect(textToSign(body, { text: signed, manifest: null, problem: 'bad' })).toBe(body);
    expect(textToSign(body, null)).toBe(body);
  });
});

import { describe, expect, it } from 'vitest';
import { serializeManifest, type BundleManifest } from '../../../src/bundle/index.js';
import { isRyeError } from '../../../src/errors/index.js';
import {
  MAX_FULL_YAML_MANIFEST_BYTES,
  parsePushedManifest,
} from '../../../src/registry/server/manifest-guard.js';

const HASH = 'a'.repeat(64);

function canonical(files: number): string {
  const manifest: BundleManifest = {
    bundle: {
      id: 'apps/big',
      version: '1.0.0',
      createdAt: '2026-01-02T03:04:05Z',
      entrypoint: { itemType: 'tool', itemId: 'apps/big/run' },
      description: 'big',
      includes: ['big-app'],
    },
    files: new Map(
      Array.from({ length: files }, (_, i) => [
        `big-app/f${String(i).padStart(6, '0')}.bin`,
        { sha256: HASH, inlineSigned: false },
      ]),
    ),
  };
  return serializeManifest(manifest);
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return isRyeError(error) ? error.code : 'not a RyeError';
  }
}

describe('parsePushedManifest()', () => {
  it('reads a large manifest in the canonical layout', () => {
    const text = canonical(2000);
    expect(text.length).toBeGreaterThan(MAX_FULL_YAML_MANIFEST_BYTES);
    expect(parsePushedManifest(text, 'm').files.size).toBe(2000);
  });

  it('refuses a large manifest in any other layout before the YAML parser starts (413)', () => {
    const list = canonical(2000).replace(
      /files:\n[\s\S]*/,
      `files:\n${Array.from({ length: 2000 }, (_, i) => `- path: big-app/f${i}.bin\n  sha256: ${HASH}\n`).join('')}`,
    );
    expect(codeOf(() => parsePushedManifest(list, 'm'))).toBe('REGISTRY_BODY_TOO_LARGE');
    const nested = `bundle:\n  id: x\nfiles: ${'['.repeat(200_000)}`;
    expect(codeOf(() => parsePushedManifest(nested, 'm'))).toBe('REGISTRY_BODY_TOO_LARGE');
    const bigHeader = `bundle:\n  description: "${'x'.repeat(100_000)}"\nfiles:\n  a/b:\n    sha256: ${HASH}\n    inline_signed: false\n`;
    expect(codeOf(() => parsePushedManifest(bigHeader, 'm'))).toBe('REGISTRY_BODY_TOO_LARGE');
  });

  it('still parses a small manifest in the legacy list layout', () => {
    const list = canonical(3).replace(
      /files:\n[\s\S]*/,
      `files:\n${[0, 1, 2].map((i) => `- path: big-app/f${i}.bin\n  sha256: ${HASH}\n  inline_signed: false\n`).join('')}`,
    );
    expect(parsePushedManifest(list, 'm').files.size).toBe(3);
  });
});

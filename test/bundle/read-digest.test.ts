import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDigest } from '../../src/bundle/index.js';

const dir = mkdtempSync(join(tmpdir(), 'rye-read-digest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('readDigest(…, {keepBytes: false})', () => {
  it('hashes each file from a reused buffer: same digests as kept bytes, files of any order and size', async () => {
    const contents = [
      Buffer.alloc(5000, 1),
      Buffer.alloc(12, 2),
      Buffer.alloc(9000, 3),
      Buffer.alloc(0),
    ];
    const paths = contents.map((bytes, i) => {
      const path = join(dir, `f${i}`);
      writeFileSync(path, bytes);
      return path;
    });
    for (const [i, path] of paths.entries()) {
      const light = await readDigest(path, { keepBytes: false });
      const kept = await readDigest(path);
      expect(light).toEqual({
        sha256: sha(contents[i] as Buffer),
        size: contents[i]?.length,
        bytes: null,
      });
      expect(kept.sha256).toBe(light.sha256);
      expect(kept.bytes?.equals(contents[i] as Buffer)).toBe(true);
    }
  });

  it('refuses what a kept read refuses: a final link is not followed', async () => {
    const target = join(dir, 'target');
    writeFileSync(target, 'x');
    symlinkSync(target, join(dir, 'link'));
    await expect(readDigest(join(dir, 'link'), { keepBytes: false })).rejects.toMatchObject({
      code: 'FILE_UNREADABLE',
    });
  });
});

import { mkdirSync, mkdtempSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/integrity/index.js';
import { MAX_ITEM_BYTES } from '../../src/platform/index.js';
import { readItemBytes } from '../../src/catalog/extract.js';

describe('readItemBytes()', () => {
  it('reads a regular file and hashes its bytes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rye-extract-'));
    const path = join(dir, 'a.md');
    writeFileSync(path, 'hello\n');
    const read = readItemBytes(path);
    if (read.bytes === null) throw new Error(`not read: ${read.code}`);
    expect(read.bytes.toString()).toBe('hello\n');
    expect(read.sha256).toBe(sha256Hex('hello\n'));
  });

  it('never reads through a symbolic link (a file swapped for one after listing)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rye-extract-'));
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, 'the secret\n');
    const link = join(dir, 'item.md');
    symlinkSync(secret, link);
    expect(readItemBytes(link)).toEqual({
      bytes: null,
      sha256: null,
      code: 'INTEGRITY_SYMLINK_ESCAPE',
    });
  });

  it('refuses a folder and a file over the size cap without reading them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rye-extract-'));
    mkdirSync(join(dir, 'folder.md'));
    expect(readItemBytes(join(dir, 'folder.md'))).toMatchObject({ code: 'FILE_UNREADABLE' });
    const big = join(dir, 'big.md');
    writeFileSync(big, '');
    truncateSync(big, MAX_ITEM_BYTES + 1);
    expect(readItemBytes(big)).toMatchObject({ bytes: null, code: 'FILE_TOO_LARGE' });
    expect(readItemBytes(join(dir, 'missing.md'))).toMatchObject({ code: 'FILE_UNREADABLE' });
  });
});

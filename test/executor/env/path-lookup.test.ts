import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  absolutePathDirs,
  findOnPath,
  isBareCommand,
} from '../../../src/executor/env/path-lookup.js';

const created: string[] = [];
afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rye-path-'));
  created.push(dir);
  return dir;
}

const posixOnly = process.platform === 'win32' ? it.skip : it;

describe('absolutePathDirs()', () => {
  it('drops empty and relative entries, and duplicates', () => {
    const value = ['', '.', 'bin', '/usr/bin', '/usr/bin', '/bin', ''].join(delimiter);
    expect(absolutePathDirs(value)).toEqual(['/usr/bin', '/bin']);
    expect(absolutePathDirs(undefined)).toEqual([]);
  });
});

describe('isBareCommand()', () => {
  it('is true only for names without a path separator', () => {
    expect(isBareCommand('python3')).toBe(true);
    expect(isBareCommand('./python3')).toBe(false);
    expect(isBareCommand('/usr/bin/python3')).toBe(false);
    expect(isBareCommand('venv\\python')).toBe(false);
  });
});

describe('findOnPath()', () => {
  posixOnly(
    'returns the first executable regular file, skipping folders and plain files',
    async () => {
      const [a, b, c] = [tempDir(), tempDir(), tempDir()];
      mkdirSync(join(a, 'tool'));
      writeFileSync(join(b, 'tool'), 'data');
      chmodSync(join(b, 'tool'), 0o644);
      writeFileSync(join(c, 'tool'), '#!/bin/sh\n');
      chmodSync(join(c, 'tool'), 0o755);
      const probed: string[] = [];
      expect(await findOnPath('tool', [a, b, c].join(delimiter), probed)).toBe(join(c, 'tool'));
      expect(probed).toEqual([join(a, 'tool'), join(b, 'tool'), join(c, 'tool')]);
    },
  );

  it('returns null when no absolute folder has it', async () => {
    expect(await findOnPath('no-such-tool-here', `.${delimiter}${tempDir()}`)).toBeNull();
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Spaces } from '../../src/items/index.js';
import {
  lockfileDir,
  lockfileName,
  readOrder,
  relativePathProblem,
  writeDir,
} from '../../src/lockfile/index.js';

const spaces: Spaces = { project: '/p', user: '/u', system: '/s' };
const invalid = expect.objectContaining({ code: 'LOCKFILE_INVALID' });

describe('lockfileName()', () => {
  it('keeps the tool id slashes as nested folders', () => {
    expect(lockfileName('web/scraper', '1.0.0')).toBe('web/scraper@1.0.0.lock.json');
    expect(lockfileName('x', '2.0.0-rc.1+build')).toBe('x@2.0.0-rc.1+build.lock.json');
  });

  for (const id of ['../x', '/abs', 'a\\b', 'a//b', '', 'C:/x']) {
    it(`refuses tool id ${JSON.stringify(id)}`, () => {
      expect(() => lockfileName(id, '1.0.0')).toThrow(invalid);
    });
  }

  for (const version of ['', '..', '1..2', '1/2', '1@2', '1 2', '1\\2']) {
    it(`refuses version ${JSON.stringify(version)}`, () => {
      expect(() => lockfileName('web/scraper', version)).toThrow(invalid);
    });
  }
});

describe('lockfile locations', () => {
  it('lockfileDir() is <base>/.ai/lockfiles', () => {
    expect(lockfileDir(spaces, 'user')).toBe(join('/u', '.ai', 'lockfiles'));
  });

  it('readOrder() is project → user → system', () => {
    expect(readOrder(spaces)).toEqual([
      { space: 'project', dir: join('/p', '.ai', 'lockfiles') },
      { space: 'user', dir: join('/u', '.ai', 'lockfiles') },
      { space: 'system', dir: join('/s', '.ai', 'lockfiles') },
    ]);
  });

  it('writeDir(): a project tool writes to the project', () => {
    expect(writeDir(spaces, 'project')).toBe(join('/p', '.ai', 'lockfiles'));
  });

  it('writeDir(): a user tool writes to the user space', () => {
    expect(writeDir(spaces, 'user')).toBe(join('/u', '.ai', 'lockfiles'));
  });

  it('writeDir(): a system tool writes to the user space (system is read-only)', () => {
    expect(writeDir(spaces, 'system')).toBe(join('/u', '.ai', 'lockfiles'));
  });
});

describe('relativePathProblem()', () => {
  it('accepts plain relative paths, dotfiles included', () => {
    for (const path of ['a', '.ai/tools/x', 'lib/__init__.py', 'a b/c:d', '…/ü']) {
      expect(relativePathProblem(path)).toBeUndefined();
    }
  });

  it('refuses what could leave the root', () => {
    for (const path of [
      '',
      '/a',
      'C:a',
      'a\\b',
      'a/../b',
      './a',
      'a//b',
      'a/',
      'a\u0000',
      '\ud800',
    ]) {
      expect(relativePathProblem(path)).toBeTypeOf('string');
    }
  });
});

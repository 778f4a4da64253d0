import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkThreadDir,
  registryDbPath,
  threadPaths,
  threadsRoot,
  treeLockPath,
} from '../../../src/threads/store/index.js';
import { expectRyeError } from '../support.js';
import { tempProject, threadId } from './store-fixtures.js';

describe('thread layout', () => {
  it('puts every file of a thread under .ai/threads/<id>/', () => {
    const project = tempProject();
    const id = threadId();
    const paths = threadPaths(project, id);
    const root = join(project, '.ai', 'threads');
    expect(paths).toEqual({
      threadId: id,
      dir: join(root, id),
      record: join(root, id, 'thread.json'),
      transcript: join(root, id, 'transcript.jsonl'),
      artifacts: join(root, id, 'artifacts'),
    });
    expect(registryDbPath(project)).toBe(join(root, 'registry.db'));
    expect(treeLockPath(project, id)).toBe(join(root, id, 'tree.lock'));
    expect(threadsRoot(project)).toBe(root);
  });

  it.each([
    '../../etc-01kdvdna000000000000000000',
    '..',
    '.',
    '',
    '/abs-01kdvdna000000000000000000',
    'a\\b-01kdvdna000000000000000000',
    'x-01kdvdna000000000000000000/..',
  ])('refuses %j before building any path', (id) => {
    expectRyeError(() => threadPaths(tempProject(), id), 'THREAD_ID_INVALID');
    expectRyeError(() => treeLockPath(tempProject(), id), 'THREAD_ID_INVALID');
  });

  it('refuses a thread folder that is a symbolic link out of .ai/threads', () => {
    const project = tempProject();
    const id = threadId();
    const outside = join(project, 'outside');
    mkdirSync(outside);
    mkdirSync(threadsRoot(project), { recursive: true });
    symlinkSync(outside, join(threadsRoot(project), id));
    expectRyeError(
      () => checkThreadDir(project, threadPaths(project, id)),
      'INTEGRITY_SYMLINK_ESCAPE',
    );
  });

  it('creates a missing thread folder on request, and reports it missing otherwise', () => {
    const project = tempProject();
    const paths = threadPaths(project, threadId());
    expectRyeError(() => checkThreadDir(project, paths), 'THREAD_NOT_FOUND');
    checkThreadDir(project, paths, true);
    expect(() => checkThreadDir(project, paths)).not.toThrow();
  });
});

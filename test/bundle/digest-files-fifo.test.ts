import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestFiles } from '../../src/bundle/digest-files.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

// Node has no mkfifo(3): this file starts mkfifo(1), so it runs in the spawning lane.
describe('digestFiles() and a FIFO', () => {
  it('refuses a FIFO as not a regular file, without blocking on it', async () => {
    const dir = join(makeTempSpaces().project, 'odd');
    mkdirSync(dir, { recursive: true });
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    writeFileSync(join(dir, 'small'), 'ok');
    const digests = await digestFiles([join(dir, 'fifo'), join(dir, 'small')]);
    expect([digests.at(0), digests.at(1)]).toEqual([
      { kind: 'failed', errno: null, message: 'not a regular file' },
      { kind: 'digest', sha256: createHash('sha256').update('ok').digest('hex'), size: 2 },
    ]);
  });
});

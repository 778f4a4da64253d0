import { createServer, type Server } from 'node:net';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectBundleFiles, walkBundle } from '../../src/bundle/index.js';
import { refusal } from '../helpers/refusal.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

const ID = 'apps/notes';
const TOOLS = `.ai/tools/${ID}`;
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((r) => server.close(r));
});

describe('walkBundle() roots', () => {
  it('calls a root that is a file, reached through a link, or neither file nor folder a stray', async () => {
    const t = makeTempSpaces();
    t.write('.ai/knowledge/apps/notes', 'a file where a folder belongs\n');
    t.write('real/index.html', 'x\n');
    symlinkSync(join(t.project, 'real'), join(t.project, 'linked'));
    mkdirSync(join(t.project, 'parent'));
    symlinkSync(join(t.project, 'real'), join(t.project, 'parent', 'app'));
    const server = createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(join(t.project, 'socket'), resolve));
    const walk = await walkBundle(t.project, ID, ['linked', 'parent/app', 'socket']);
    expect(walk.files).toEqual([]);
    expect(walk.strays).toEqual(['.ai/knowledge/apps/notes', 'linked', 'parent/app', 'socket']);
  });

  it('takes a root below a file as missing, and fails on one it cannot look at', async () => {
    const t = makeTempSpaces();
    t.write('afile', 'x\n');
    t.write(`${TOOLS}/run.py`, 'print(1)\n');
    const walk = await walkBundle(t.project, ID, ['afile/app']);
    expect(walk.files.map((f) => f.path)).toEqual([`${TOOLS}/run.py`]);
    // A name longer than the file system takes (ENAMETOOLONG), not a missing folder.
    await expect(walkBundle(t.project, ID, ['a'.repeat(300)])).rejects.toMatchObject({
      code: 'FILE_UNREADABLE',
      message: expect.stringContaining('ENAMETOOLONG'),
    });
  });
});

describe('collectBundleFiles()', () => {
  it('refuses an item folder that is a file, naming it as a file', async () => {
    const t = makeTempSpaces();
    t.write(TOOLS, 'not a folder\n');
    t.write('app/index.html', 'x\n');
    const refused = await refusal(collectBundleFiles(t.project, ID, ['app']));
    expect([refused.code, refused.message]).toEqual([
      'BUNDLE_MANIFEST_INVALID',
      `Cannot collect bundle ${ID}: ${TOOLS} it is a file, and a bundle's folders (its item folders, its includes) are folders`,
    ]);
  });

  it('refuses a file whose name a manifest cannot list', async () => {
    const t = makeTempSpaces();
    t.write('app/bad\\name.txt', 'x\n');
    const refused = await refusal(collectBundleFiles(t.project, ID, ['app']));
    expect(refused).toMatchObject({
      code: 'BUNDLE_MANIFEST_INVALID',
      details: { bundleId: ID, path: 'app/bad\\name.txt' },
    });
    expect(refused.message).toContain('cannot be listed');
  });
});

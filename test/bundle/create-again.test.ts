import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBundle, type CreateBundleInput } from '../../src/bundle/index.js';
import {
  formatTrustToml,
  parsePublicKey,
  publicPemOf,
  signText,
  type Signer,
} from '../../src/integrity/index.js';
import { makeSigner } from '../helpers/keys.js';
import { refusal } from '../helpers/refusal.js';
import { TASK_MANAGER_ID, writeTaskManager } from '../helpers/task-manager.js';
import { makeTempSpaces, type TempSpaces } from '../helpers/temp-space.js';

const EARLY = new Date('2026-02-11T00:00:00Z');
const LATE = new Date('2026-03-01T08:30:00Z');

function fixture(): { spaces: TempSpaces; signer: Signer; manifest: string } {
  const spaces = makeTempSpaces();
  const { signer } = makeSigner();
  writeTaskManager(spaces, signer);
  return {
    spaces,
    signer,
    manifest: join(spaces.project, '.ai/bundles', TASK_MANAGER_ID, 'manifest.yaml'),
  };
}

const create = (
  f: { spaces: TempSpaces; signer: Signer },
  extra: Partial<CreateBundleInput> = {},
) =>
  createBundle({
    spaces: f.spaces,
    bundleId: TASK_MANAGER_ID,
    version: '1.0.0',
    includes: ['task-manager'],
    signer: f.signer,
    now: EARLY,
    ...extra,
  });

describe('createBundle() run again', () => {
  it('keeps the manifest byte for byte when nothing changed (status unchanged)', async () => {
    const f = fixture();
    expect((await create(f)).status).toBe('created');
    const before = readFileSync(f.manifest);
    const again = await create(f, { now: LATE });
    expect(again.status).toBe('unchanged');
    expect(readFileSync(f.manifest).equals(before)).toBe(true);
    expect(again.manifest.bundle.createdAt).toBe('2026-02-11T00:00:00Z');
  });

  it('refuses other content under the same version without force, and writes nothing', async () => {
    const f = fixture();
    await create(f);
    const before = readFileSync(f.manifest);
    f.spaces.write('task-manager/client/src/extra.js', 'export const x = 1;\n');
    const error = await refusal(create(f, { now: LATE }));
    expect(error.code).toBe('BUNDLE_EXISTS');
    expect(error.message).toContain('1 file added');
    expect(error.message).toContain('--force');
    expect(readFileSync(f.manifest).equals(before)).toBe(true);

    const forced = await create(f, { now: LATE, force: true });
    expect(forced.status).toBe('replaced');
    expect(forced.manifest.files.has('task-manager/client/src/extra.js')).toBe(true);
  });

  it('refuses fewer files under the same version (an include left out) without force', async () => {
    const f = fixture();
    await create(f);
    const error = await refusal(create(f, { includes: [] }));
    expect(error.code).toBe('BUNDLE_EXISTS');
    expect(error.message).toMatch(/includes, \d+ files removed/);
  });

  it('replaces the manifest of another version without force', async () => {
    const f = fixture();
    await create(f);
    f.spaces.write('task-manager/client/src/extra.js', 'export const x = 1;\n');
    const next = await create(f, { version: '1.1.0', now: LATE });
    expect(next.status).toBe('replaced');
    expect(readFileSync(f.manifest, 'utf8')).toMatch(/^ {2}version: '?1\.1\.0'?$/m);
  });

  it('refuses to replace a manifest that does not parse unless forced', async () => {
    const f = fixture();
    f.spaces.write('.ai/bundles/apps/task-manager/manifest.yaml', 'bundle: [not, a, manifest\n');
    expect((await refusal(create(f))).code).toBe('BUNDLE_EXISTS');
    expect((await create(f, { force: true })).status).toBe('replaced');
  });
});

describe('createBundle() includes', () => {
  it('refuses a missing include as a usage error and leaves the old manifest', async () => {
    const f = fixture();
    await create(f);
    const before = readFileSync(f.manifest);
    const error = await refusal(create(f, { includes: ['task-manager', 'missing-dir'] }));
    expect(error.code).toBe('USAGE_INVALID_ARGUMENT');
    expect(error.message).toContain('"missing-dir"');
    expect(error.message).toContain('no folder');
    expect(readFileSync(f.manifest).equals(before)).toBe(true);
  });

  it('refuses an include outside the project or that is a file as a usage error', async () => {
    const f = fixture();
    for (const include of ['../outside', 'task-manager/package.json']) {
      const error = await refusal(create(f, { includes: [include] }));
      expect(error.code, include).toBe('USAGE_INVALID_ARGUMENT');
    }
    expect(existsSync(f.manifest)).toBe(false);
  });
});

describe('createBundle() includes that cannot be looked at', () => {
  it('calls an include below a file missing, and fails on a name the file system refuses', async () => {
    const f = fixture();
    const below = await refusal(create(f, { includes: ['task-manager/package.json/x'] }));
    expect([below.code, below.message]).toEqual([
      'USAGE_INVALID_ARGUMENT',
      expect.stringContaining('there is no folder'),
    ]);
    const long = await refusal(create(f, { includes: ['a'.repeat(300)] }));
    expect([long.code, long.message]).toEqual([
      'FILE_UNREADABLE',
      expect.stringContaining('ENAMETOOLONG'),
    ]);
  });
});

describe('createBundle() vouches only for items whose inline signature verifies', () => {
  it('names how many more items fail after the first', async () => {
    const f = fixture();
    for (const name of ['dev_server', 'test_runner']) {
      const tool = join(f.spaces.project, `.ai/tools/apps/task-manager/${name}.py`);
      writeFileSync(tool, `${readFileSync(tool, 'utf8')}# edited\n`);
    }
    const error = await refusal(create(f));
    expect(error.message).toContain('does not verify (and 1 more)');
    expect((error.details['failures'] as unknown[]).length).toBe(2);
  });

  it('checks with the spaces’ trust alone when they already trust the creator', async () => {
    const f = fixture();
    const creator = parsePublicKey(publicPemOf(f.signer.privateKey));
    f.spaces.write(
      `.ai/trusted_keys/${creator.fingerprint}.toml`,
      formatTrustToml({ ...creator, owner: 'me', attestation: '' }),
      f.spaces.user,
    );
    expect((await create(f)).status).toBe('created');
  });

  it('refuses a tool edited after signing, naming it, and writes no manifest', async () => {
    const f = fixture();
    const tool = join(f.spaces.project, '.ai/tools/apps/task-manager/dev_server.py');
    writeFileSync(tool, `${readFileSync(tool, 'utf8')}import os; os.system("curl evil")\n`);
    const error = await refusal(create(f));
    expect(error.code).toBe('INTEGRITY_HASH_MISMATCH');
    expect(error.message).toContain('.ai/tools/apps/task-manager/dev_server.py');
    expect(existsSync(f.manifest)).toBe(false);
  });

  it('leaves the previous manifest when an item broke since', async () => {
    const f = fixture();
    await create(f);
    const before = readFileSync(f.manifest);
    const directive = join(
      f.spaces.project,
      '.ai/directives/apps/task-manager/scaffold_project.md',
    );
    writeFileSync(directive, readFileSync(directive, 'utf8').replace('Do it.', 'Wipe it.'));
    expect((await refusal(create(f, { force: true }))).code).toBe('INTEGRITY_HASH_MISMATCH');
    expect(readFileSync(f.manifest).equals(before)).toBe(true);
  });

  it('refuses an item signed by a key nobody trusts, and accepts it once trusted', async () => {
    const f = fixture();
    const stranger = makeSigner('stranger');
    f.spaces.write(
      '.ai/knowledge/apps/task-manager/extra.md',
      signText(
        '```yaml\nname: extra\ntitle: Extra\nentry_type: reference\nversion: "1.0.0"\n```\n',
        {
          itemType: 'knowledge',
          extension: '.md',
          signer: stranger.signer,
        },
      ).text,
    );
    const error = await refusal(create(f));
    expect(error.code).toBe('INTEGRITY_UNTRUSTED_KEY');
    expect(error.message).toContain('.ai/knowledge/apps/task-manager/extra.md');
    expect(existsSync(f.manifest)).toBe(false);
    const creator = parsePublicKey(publicPemOf(f.signer.privateKey));
    const trust = new Map([
      ...stranger.trust,
      [creator.fingerprint, { ...creator, owner: 'me', attestation: '', source: null }],
    ]);
    expect((await create(f, { trust })).status).toBe('created');
  });
});

import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rye } from '../helpers/cli.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

describe('rye keys', () => {
  it('generate writes a 0600 private key in a 0700 folder and show prints it', async () => {
    const s = makeTempSpaces();
    const gen = await rye(['keys', 'generate', '--json'], { env: s.env });
    expect(gen.code).toBe(0);
    const keyDir = join(s.user, '.ai', 'keys');
    expect(statSync(keyDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(keyDir, 'private_key.pem')).mode & 0o777).toBe(0o600);
    const show = await rye(['keys', 'show', '--json'], { env: s.env });
    expect(show.code).toBe(0);
    const doc = show.json<{ fingerprint: string; public_key_pem: string }>();
    expect(Object.keys(doc).sort()).toEqual(['fingerprint', 'ok', 'public_key_pem']);
    expect(doc.fingerprint).toBe(gen.json<{ fingerprint: string }>().fingerprint);
    expect(doc.public_key_pem).toBe(readFileSync(join(keyDir, 'public_key.pem'), 'utf8'));
  });

  it('generate refuses to overwrite (KEY_EXISTS, exit 1) and --force replaces the pair', async () => {
    const s = makeTempSpaces();
    await rye(['keys', 'generate'], { env: s.env });
    const before = readFileSync(join(s.user, '.ai', 'keys', 'private_key.pem'), 'utf8');
    const again = await rye(['keys', 'generate', '--json'], { env: s.env });
    expect(again.code).toBe(1);
    expect(again.json<{ error: { code: string } }>().error.code).toBe('KEY_EXISTS');
    expect(readFileSync(join(s.user, '.ai', 'keys', 'private_key.pem'), 'utf8')).toBe(before);
    const forced = await rye(['keys', 'generate', '--force'], { env: s.env });
    expect(forced.code).toBe(0);
    expect(readFileSync(join(s.user, '.ai', 'keys', 'private_key.pem'), 'utf8')).not.toBe(before);
  });

  it('show without a key pair is KEY_NOT_FOUND with a hint', async () => {
    const s = makeTempSpaces();
    const show = await rye(['keys', 'show'], { env: s.env });
    expect(show.code).toBe(1);
    expect(show.stderr).toContain('KEY_NOT_FOUND');
    expect(show.stderr).toContain('rye keys generate');
  });
});

describe('rye trust', () => {
  it('add (PEM), list and remove a key, in user space by default', async () => {
    const s = makeTempSpaces();
    const other = makeTempSpaces();
    await rye(['keys', 'generate'], { env: other.env });
    const pem = join(other.user, '.ai', 'keys', 'public_key.pem');
    const added = await rye(['trust', 'add', pem, '--owner', 'bob', '--json'], { env: s.env });
    expect(added.code).toBe(0);
    const { fingerprint, path } = added.json<{ fingerprint: string; path: string }>();
    expect(path).toBe(join(s.user, '.ai', 'trusted_keys', `${fingerprint}.toml`));
    expect(readFileSync(path, 'utf8')).toContain('owner = "bob"');

    const list = await rye(['trust', 'list', '--json'], { env: s.env });
    expect(
      list.json<{ keys: { fingerprint: string; owner: string; space: string }[] }>().keys,
    ).toEqual([expect.objectContaining({ fingerprint, owner: 'bob', space: 'user' })]);

    const removed = await rye(['trust', 'remove', fingerprint], { env: s.env });
    expect(removed.code).toBe(0);
    expect(existsSync(path)).toBe(false);
    const gone = await rye(['trust', 'remove', fingerprint, '--json'], { env: s.env });
    expect(gone.code).toBe(1);
    expect(gone.json<{ error: { code: string } }>().error.code).toBe('TRUST_KEY_NOT_FOUND');
  });

  it('add accepts a TOML document into project space', async () => {
    const s = makeTempSpaces();
    const other = makeTempSpaces();
    await rye(['keys', 'generate'], { env: other.env });
    const first = await rye(
      [
        'trust',
        'add',
        join(other.user, '.ai', 'keys', 'public_key.pem'),
        '--owner',
        'carol',
        '--json',
      ],
      { env: other.env },
    );
    const toml = first.json<{ path: string }>().path;
    const added = await rye(
      ['trust', 'add', toml, '--space', 'project', '--project', s.project, '--json'],
      { env: s.env },
    );
    expect(added.code).toBe(0);
    expect(added.json<{ path: string; owner: string }>()).toMatchObject({ owner: 'carol' });
    expect(
      added.json<{ path: string }>().path.startsWith(join(s.project, '.ai', 'trusted_keys')),
    ).toBe(true);
  });

  it('add refuses a TOML whose fingerprint does not match its key (exit 3) and list warns about one', async () => {
    const s = makeTempSpaces();
    await rye(['keys', 'generate'], { env: s.env });
    const toml = (
      await rye(['trust', 'add', join(s.user, '.ai', 'keys', 'public_key.pem'), '--json'], {
        env: s.env,
      })
    ).json<{
      path: string;
    }>().path;
    const lying = join(s.root, 'lying.toml');
    writeFileSync(
      lying,
      readFileSync(toml, 'utf8').replace(
        /fingerprint = "[0-9a-f]{16}"/,
        'fingerprint = "0123456789abcdef"',
      ),
    );
    const refused = await rye(['trust', 'add', lying, '--json'], { env: s.env });
    expect(refused.code).toBe(3);
    expect(refused.json<{ error: { code: string } }>().error.code).toBe(
      'TRUST_FINGERPRINT_MISMATCH',
    );

    writeFileSync(
      join(s.user, '.ai', 'trusted_keys', '0123456789abcdef.toml'),
      readFileSync(lying),
    );
    const list = await rye(['trust', 'list'], { env: s.env });
    expect(list.code).toBe(0);
    expect(list.stderr).toContain('TRUST_FINGERPRINT_MISMATCH');
    expect(list.stdout).not.toContain('0123456789abcdef');
  });

  it('remove refuses a malformed fingerprint as a usage error', async () => {
    const s = makeTempSpaces();
    const res = await rye(['trust', 'remove', '../../etc', '--json'], { env: s.env });
    expect(res.code).toBe(2);
    expect(res.json<{ error: { code: string } }>().error.code).toBe('USAGE_INVALID_ARGUMENT');
  });

  it('add refuses --space system', async () => {
    const s = makeTempSpaces();
    const res = await rye(['trust', 'add', 'x.pem', '--space', 'system'], { env: s.env });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('SPACE_INVALID');
  });
});

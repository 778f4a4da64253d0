import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  formatTrustToml,
  generateKeyPair,
  parsePublicKey,
  signText,
  verifyText,
  parsePrivateKey,
  fingerprintOf,
} from '../../src/integrity/index.js';
import {
  approvalsPath,
  approveProjectTrust,
  keepApproved,
  loadSpaceTrust,
  readProjectTrust,
  resolveSpaces,
  revokeProjectTrust,
  type Spaces,
} from '../../src/items/index.js';
import { refusal } from '../helpers/refusal.js';
import { makeTempSpaces, type TempSpaces } from '../helpers/temp-space.js';

function keyToml(owner: string): { toml: string; fingerprint: string; privateKeyPem: string } {
  const pair = generateKeyPair();
  const info = parsePublicKey(pair.publicKeyPem);
  const toml = formatTrustToml({ ...info, owner, attestation: '' });
  return { toml, fingerprint: info.fingerprint, privateKeyPem: pair.privateKeyPem };
}

function setup(): { s: TempSpaces; spaces: Spaces } {
  const s = makeTempSpaces();
  return { s, spaces: resolveSpaces({ project: s.project, env: s.env }) };
}

const storeFile = (s: TempSpaces, name: string, text: string): string =>
  s.write(`.ai/trusted_keys/${name}`, text);

describe('readProjectTrust()', () => {
  it('is none without key files, pending with some, approved after approveProjectTrust()', async () => {
    const { s, spaces } = setup();
    expect((await readProjectTrust(spaces)).status).toBe('none');
    const key = keyToml('mallory');
    storeFile(s, `${key.fingerprint}.toml`, key.toml);
    const pending = await readProjectTrust(spaces);
    expect(pending.status).toBe('pending');
    const approved = await approveProjectTrust(spaces);
    expect(approved).toMatchObject({ status: 'approved', digest: pending.digest });
    expect((await readProjectTrust(spaces)).status).toBe('approved');
  });

  it('changes its digest for a key added, removed, renamed or edited, and for a non-key file named .toml', async () => {
    const { s, spaces } = setup();
    const a = keyToml('a');
    const b = keyToml('b');
    storeFile(s, `${a.fingerprint}.toml`, a.toml);
    const digests = new Set<string>([(await readProjectTrust(spaces)).digest]);
    const pathB = storeFile(s, `${b.fingerprint}.toml`, b.toml);
    digests.add((await readProjectTrust(spaces)).digest);
    writeFileSync(pathB, b.toml.replace('owner = "b"', 'owner = "c"'));
    digests.add((await readProjectTrust(spaces)).digest);
    rmSync(pathB);
    storeFile(s, `x${b.fingerprint}.toml`, b.toml);
    digests.add((await readProjectTrust(spaces)).digest);
    storeFile(s, 'junk.toml', 'not toml = = =');
    digests.add((await readProjectTrust(spaces)).digest);
    expect(digests.size).toBe(5);
    // Files the loader never reads do not count.
    const before = (await readProjectTrust(spaces)).digest;
    storeFile(s, 'README.md', 'notes');
    expect((await readProjectTrust(spaces)).digest).toBe(before);
  });

  it('keys approvals by the real path: a symlink to the project shares its approval', async () => {
    const { s, spaces } = setup();
    const key = keyToml('k');
    storeFile(s, `${key.fingerprint}.toml`, key.toml);
    await approveProjectTrust(spaces);
    const link = join(s.root, 'link');
    symlinkSync(s.project, link);
    const viaLink = resolveSpaces({ project: link, env: s.env });
    expect((await readProjectTrust(viaLink)).status).toBe('approved');
    const doc = JSON.parse(readFileSync(approvalsPath(spaces), 'utf8')) as {
      projects: Record<string, unknown>;
    };
    expect(Object.keys(doc.projects)).toEqual([(await readProjectTrust(spaces)).project]);
  });

  it('treats the user space as its own store when the project is the user space', async () => {
    const s = makeTempSpaces();
    const spaces = resolveSpaces({ project: s.user, env: s.env });
    const key = keyToml('self');
    s.write(`.ai/trusted_keys/${key.fingerprint}.toml`, key.toml, s.user);
    expect((await readProjectTrust(spaces)).status).toBe('own-store');
    const loaded = await loadSpaceTrust(spaces);
    expect(loaded.trust.has(key.fingerprint)).toBe(true);
    expect(loaded.pending).toEqual([]);
  });
});

describe('loadSpaceTrust()', () => {
  it('leaves unapproved project keys out of the trust set and names them in the refusal', async () => {
    const { s, spaces } = setup();
    const key = keyToml('mallory');
    storeFile(s, `${key.fingerprint}.toml`, key.toml);
    const loaded = await loadSpaceTrust(spaces);
    expect(loaded.trust.has(key.fingerprint)).toBe(false);
    expect(loaded.pending.map((k) => k.fingerprint)).toEqual([key.fingerprint]);

    const signer = {
      privateKey: parsePrivateKey(key.privateKeyPem),
      fingerprint: key.fingerprint,
    };
    const text = signText('x = 1\n', { itemType: 'tool', extension: '.py', signer }).text;
    const result = verifyText(text, {
      itemType: 'tool',
      extension: '.py',
      trust: loaded.trust,
    });
    expect(result).toMatchObject({
      ok: false,
      verdict: 'untrusted_key',
      code: 'TRUST_PROJECT_UNAPPROVED',
    });
    const real = (await readProjectTrust(spaces)).project;
    expect(result.message).toContain(`rye trust approve --project ${real}`);

    await approveProjectTrust(spaces);
    const approved = await loadSpaceTrust(spaces);
    expect(approved.trust.get(key.fingerprint)?.owner).toBe('mallory');
    expect(verifyText(text, { itemType: 'tool', extension: '.py', trust: approved.trust }).ok).toBe(
      true,
    );
  });

  it('keeps the plain untrusted verdict for a key that is in no store', async () => {
    const { spaces } = setup();
    const pair = generateKeyPair();
    const signer = {
      privateKey: parsePrivateKey(pair.privateKeyPem),
      fingerprint: fingerprintOf(pair.publicKeyPem),
    };
    const text = signText('x = 1\n', { itemType: 'tool', extension: '.py', signer }).text;
    const { trust } = await loadSpaceTrust(spaces);
    expect(verifyText(text, { itemType: 'tool', extension: '.py', trust }).code).toBe(
      'INTEGRITY_UNTRUSTED_KEY',
    );
  });

  it('approves nothing when the approvals file is malformed, and approve refuses to overwrite it', async () => {
    const { s, spaces } = setup();
    const key = keyToml('k');
    storeFile(s, `${key.fingerprint}.toml`, key.toml);
    await approveProjectTrust(spaces);
    writeFileSync(approvalsPath(spaces), '{"version": 1, "projects": {"/x": {"sha256": 1}}}');
    const loaded = await loadSpaceTrust(spaces);
    expect(loaded.trust.has(key.fingerprint)).toBe(false);
    expect(loaded.warnings.map((w) => w.code)).toContain('TRUST_APPROVALS_INVALID');
    expect((await refusal(approveProjectTrust(spaces))).code).toBe('TRUST_APPROVALS_INVALID');
    expect(readFileSync(approvalsPath(spaces), 'utf8')).toContain('"sha256": 1');
  });
});

describe('keepApproved() and revokeProjectTrust()', () => {
  it('keeps an approved store approved with one added file, but never approves a pending one', async () => {
    const { s, spaces } = setup();
    const a = keyToml('a');
    storeFile(s, `${a.fingerprint}.toml`, a.toml);
    await approveProjectTrust(spaces);

    const b = keyToml('b');
    const before = await readProjectTrust(spaces);
    storeFile(s, `${b.fingerprint}.toml`, b.toml);
    expect(
      await keepApproved(spaces, before, {
        name: `${b.fingerprint}.toml`,
        bytes: Buffer.from(b.toml),
      }),
    ).toBe(true);
    expect((await readProjectTrust(spaces)).status).toBe('approved');

    // Someone else adds a key: pending; the user's next addition does not approve it.
    const m = keyToml('m');
    storeFile(s, `${m.fingerprint}.toml`, m.toml);
    const c = keyToml('c');
    const pending = await readProjectTrust(spaces);
    storeFile(s, `${c.fingerprint}.toml`, c.toml);
    expect(
      await keepApproved(spaces, pending, {
        name: `${c.fingerprint}.toml`,
        bytes: Buffer.from(c.toml),
      }),
    ).toBe(false);
    expect((await readProjectTrust(spaces)).status).toBe('pending');
  });

  it('pins exactly the expected content: a file that differs from what was added stays pending', async () => {
    const { s, spaces } = setup();
    const a = keyToml('a');
    const before = await readProjectTrust(spaces);
    storeFile(s, `${a.fingerprint}.toml`, a.toml.replace('owner = "a"', 'owner = "swapped"'));
    await keepApproved(spaces, before, {
      name: `${a.fingerprint}.toml`,
      bytes: Buffer.from(a.toml),
    });
    expect((await readProjectTrust(spaces)).status).toBe('pending');
  });

  it('revoke removes the approval; without one it reports false', async () => {
    const { s, spaces } = setup();
    const a = keyToml('a');
    storeFile(s, `${a.fingerprint}.toml`, a.toml);
    await approveProjectTrust(spaces);
    expect(await revokeProjectTrust(spaces)).toBe(true);
    expect((await readProjectTrust(spaces)).status).toBe('pending');
    expect(await revokeProjectTrust(spaces)).toBe(false);
  });
});

import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintOf, generateKeyPair } from '../../../src/integrity/index.js';
import { loadOrCreateRegistryKey } from '../../../src/registry/server/index.js';
import { refusal } from '../../helpers/refusal.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'rye-registry-key-'));
  dirs.push(dir);
  return dir;
};

describe('loadOrCreateRegistryKey()', () => {
  it('creates a PKCS8 key with mode 0600 on first start, then loads the same key', async () => {
    const file = join(tempDir(), 'nested', 'registry-key.pem');
    const created = await loadOrCreateRegistryKey(file);
    expect(created.created).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(created.fingerprint).toBe(fingerprintOf(created.publicKeyPem));
    expect(created.signer.fingerprint).toBe(created.fingerprint);
    const loaded = await loadOrCreateRegistryKey(file);
    expect(loaded.created).toBe(false);
    expect(loaded.publicKeyPem).toBe(created.publicKeyPem);
  });

  it('refuses a key file other users can read', async () => {
    const file = join(tempDir(), 'registry-key.pem');
    writeFileSync(file, generateKeyPair().privateKeyPem, { mode: 0o644 });
    chmodSync(file, 0o644);
    const error = await refusal(loadOrCreateRegistryKey(file));
    expect(error.code).toBe('USAGE_INVALID_ARGUMENT');
    expect(error.message).toContain('chmod 600');
  });

  it('refuses a file that is not an Ed25519 private key (KEY_INVALID)', async () => {
    const file = join(tempDir(), 'registry-key.pem');
    writeFileSync(file, generateKeyPair().publicKeyPem, { mode: 0o600 });
    expect((await refusal(loadOrCreateRegistryKey(file))).code).toBe('KEY_INVALID');
  });
});

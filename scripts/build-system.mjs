#!/usr/bin/env node
// Builds the system space: signs every item under system/.ai/ into dist/system/.ai/
// with a key generated for this build, and trusts that key in the system trust
// store. The private key lives only in this process: no private key is ever
// written to disk or committed, so nobody can sign a system item later.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  assertValid,
  bodyWithoutSignature,
  extractMetadata,
  fingerprintOf,
  formatTrustToml,
  generateKeyPair,
  parsePrivateKey,
  signText,
} from '../dist/src/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = join(root, 'system', '.ai');
const target = join(root, 'dist', 'system', '.ai');
const FOLDERS = { directives: 'directive', tools: 'tool', knowledge: 'knowledge' };

async function* walk(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}

const pair = generateKeyPair();
const signer = {
  privateKey: parsePrivateKey(pair.privateKeyPem),
  fingerprint: fingerprintOf(pair.publicKeyPem),
};
const now = new Date();
await rm(join(root, 'dist', 'system'), { recursive: true, force: true });
let count = 0;
for (const [folder, itemType] of Object.entries(FOLDERS)) {
  for await (const path of walk(join(source, folder))) {
    const rel = relative(join(source, folder), path);
    const extension = extname(path);
    const text = await readFile(path, 'utf8');
    const metadata = await extractMetadata(
      itemType,
      extension,
      bodyWithoutSignature(text, itemType, extension),
      path,
    );
    assertValid({
      itemType,
      itemId: rel.slice(0, -extension.length).split(sep).join('/'),
      metadata,
    });
    const signed = signText(text, { itemType, extension, signer, now, path });
    const out = join(target, folder, rel);
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, signed.text);
    count += 1;
  }
}
const trustFile = join(target, 'trusted_keys', `${signer.fingerprint}.toml`);
await mkdir(dirname(trustFile), { recursive: true });
await writeFile(
  trustFile,
  formatTrustToml({
    fingerprint: signer.fingerprint,
    owner: 'rye-system-build',
    attestation: `system space build ${now.toISOString()}`,
    publicKeyPem: pair.publicKeyPem,
  }),
);
console.log(`system space: signed ${count} items with build key ${signer.fingerprint}`);

// A throwaway project, user and system space for the benchmarks that run
// tools: a fresh key trusted in the user space, the built system space copied,
// and items signed into the project. Run after `npm run build`.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  fingerprintOf,
  formatTrustToml,
  generateKeyPair,
  parsePrivateKey,
  resolveSpaces,
  signText,
} from '../dist/src/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/**
 * Make the spaces; `items` maps a project `.ai/`-relative path
 * (`tools/b/x.mjs`, `knowledge/b/n.md`) to its text, signed here.
 * Returns `{ project, user, system, env, spaces, remove() }`.
 */
export function signedSpaces(name, items, extraEnv = {}) {
  const work = mkdtempSync(join(tmpdir(), `rye-bench-${name}-`));
  const pair = generateKeyPair();
  const signer = {
    privateKey: parsePrivateKey(pair.privateKeyPem),
    fingerprint: fingerprintOf(pair.publicKeyPem),
  };
  const project = join(work, 'project');
  const user = join(work, 'user');
  const system = join(work, 'system');
  cpSync(join(root, 'dist', 'system'), system, { recursive: true });
  write(
    join(user, '.ai', 'trusted_keys', `${signer.fingerprint}.toml`),
    formatTrustToml({
      fingerprint: signer.fingerprint,
      owner: 'bench',
      attestation: '',
      publicKeyPem: pair.publicKeyPem,
    }),
  );
  for (const [rel, text] of Object.entries(items)) {
    const itemType = rel.startsWith('knowledge/') ? 'knowledge' : 'tool';
    const extension = rel.slice(rel.lastIndexOf('.'));
    write(join(project, '.ai', rel), signText(text, { itemType, extension, signer }).text);
  }
  const env = { ...process.env, RYE_USER_SPACE: user, RYE_SYSTEM_SPACE: system, ...extraEnv };
  return {
    project,
    user,
    system,
    env,
    spaces: resolveSpaces({ project, env }),
    remove: () => rmSync(work, { recursive: true, force: true }),
  };
}

/**
 * An author against a real registry process: an account, a registered key
 * trusted in its own user space, and a project.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureSelfTrusted, resolveSpaces, type Spaces } from '../../../src/items/index.js';
import type { Signer, TrustSet } from '../../../src/integrity/index.js';
import { signKeyProof } from '../../../src/registry/index.js';
import { makeSigner } from '../../helpers/keys.js';

export interface Author {
  readonly username: string;
  readonly token: string;
  readonly signer: Signer;
  /** A trust set holding only this author's key. */
  readonly trust: TrustSet;
  readonly root: string;
  readonly spaces: Spaces;
  /** RYE_USER_SPACE, RYE_REGISTRY_URL and RYE_REGISTRY_TOKEN for this author. */
  readonly env: NodeJS.ProcessEnv;
}

/** POST JSON to the registry and return the parsed answer; throws on a non-2xx status. */
export async function registryCall(
  url: string,
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  const init: RequestInit = { method, headers };
  if (body !== undefined) init.body = JSON.stringify(body);
  const answer = await fetch(url + path, init);
  const text = await answer.text();
  if (!answer.ok) throw new Error(`${method} ${path}: ${answer.status} ${text}`);
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/** Sign up `username`, register a fresh key, trust it in a fresh user space. */
export async function makeAuthor(url: string, username: string): Promise<Author> {
  const root = mkdtempSync(join(tmpdir(), `rye-author-${username}-`));
  mkdirSync(join(root, 'project'));
  const { signer, publicKeyPem, trust } = makeSigner(username);
  const session = await registryCall(url, 'POST', '/v1/accounts', null, {
    username,
    password: 'correct horse battery',
  });
  const token = session['token'] as string;
  const asked = await registryCall(url, 'POST', '/v1/keys/challenge', token);
  const challenge = asked['challenge'] as string;
  const signature = signKeyProof(signer.privateKey, {
    registryFingerprint: asked['registry_fingerprint'] as string,
    username,
    keyFingerprint: signer.fingerprint,
    challenge,
  });
  await registryCall(url, 'POST', '/v1/keys', token, {
    public_key: publicKeyPem,
    challenge,
    signature,
  });
  const env = {
    ...process.env,
    RYE_USER_SPACE: join(root, 'user'),
    RYE_REGISTRY_URL: url,
    RYE_REGISTRY_TOKEN: token,
  };
  const spaces = resolveSpaces({ project: join(root, 'project'), env });
  await ensureSelfTrusted(spaces, { fingerprint: signer.fingerprint, publicKeyPem });
  return { username, token, signer, trust, root, spaces, env };
}

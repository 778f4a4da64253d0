import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { RyeError } from '../errors/index.js';
import {
  formatTrustToml,
  loadTrustStore,
  mergeLoadedTrust,
  readTrustFile,
  withPendingKeys,
  type KeyScope,
  type LoadedTrust,
  type StoredTrustedKey,
  type TrustedKey,
} from '../integrity/index.js';
import { pathExists, writeFileAtomic } from '../platform/index.js';
import { keepApproved, readProjectTrust, type ProjectTrust } from './project-trust.js';
import { aiDir, trustStores, type SpaceName, type Spaces } from './spaces.js';

const FINGERPRINT_RE = /^[0-9a-f]{16}$/;

/** The trusted-key folder of one space. */
export function trustDir(spaces: Spaces, space: SpaceName): string {
  return join(aiDir(spaces, space), 'trusted_keys');
}

/** The trust of the three spaces, and where the project's own store stands. */
export interface SpaceTrust extends LoadedTrust {
  readonly project: ProjectTrust;
  /** Project keys that do not count because the user has not approved the store. */
  readonly pending: readonly StoredTrustedKey[];
}

/**
 * Load the trust stores, project → user → system (files that do not parse are
 * skipped with a warning). Project keys count only when the user approved that
 * store's exact content (docs/trust.md); otherwise they are `pending`, not in
 * the trust set, and a refusal naming one says what to run.
 */
export async function loadSpaceTrust(spaces: Spaces): Promise<SpaceTrust> {
  const [project, others] = await Promise.all([
    readProjectTrust(spaces),
    loadTrustStore(trustStores(spaces).filter((s) => s.space !== 'project')),
  ]);
  const counts = project.status === 'approved';
  const merged = mergeLoadedTrust(counts ? [project.loaded, others] : [others]);
  const pending = project.status === 'pending' ? project.loaded.keys : [];
  const trust = withPendingKeys(
    merged.trust,
    pending.map((k) => ({ fingerprint: k.fingerprint, owner: k.owner, project: project.project })),
  );
  const warnings = [
    ...(project.status === 'own-store' ? [] : project.loaded.warnings),
    ...others.warnings,
    ...(project.approvalsWarning === null ? [] : [project.approvalsWarning]),
  ];
  return { trust, keys: merged.keys, warnings, project, pending };
}

/**
 * Trust a key from a PEM or TOML file: write `<space>/.ai/trusted_keys/<FP>.toml`,
 * limited to `options.scope` when given (else to the TOML file's own scope, if any).
 *
 * In project space, a store the user had approved (or an empty one) stays
 * approved with the new key; a store with unapproved keys stays pending.
 *
 * @throws RyeError SPACE_READ_ONLY, FILE_*, TRUST_FILE_INVALID, KEY_INVALID,
 *   TRUST_FINGERPRINT_MISMATCH, TRUST_APPROVALS_INVALID
 */
export async function addTrustedKey(
  spaces: Spaces,
  source: string,
  options: { owner?: string | undefined; space?: SpaceName; scope?: KeyScope | undefined } = {},
): Promise<{ key: TrustedKey; path: string }> {
  const space = options.space ?? 'user';
  if (space === 'system') {
    throw new RyeError(
      'SPACE_READ_ONLY',
      'Cannot add a trusted key to system space: it is read-only',
      {},
    );
  }
  const read = await readTrustFile(source, options.owner);
  // A scope given here replaces the file's own (`rye trust add --scope`).
  const key = options.scope === undefined ? read : { ...read, scopes: [options.scope] };
  const name = `${key.fingerprint}.toml`;
  const path = join(trustDir(spaces, space), name);
  const before = space === 'project' ? await readProjectTrust(spaces) : null;
  const bytes = Buffer.from(formatTrustToml(key), 'utf8');
  await writeFileAtomic(path, bytes);
  // The user named this key: an approved (or empty) project store stays approved.
  if (before !== null) await keepApproved(spaces, before, { name, bytes });
  return { key: { ...key, source: path }, path };
}

/**
 * Stop trusting a fingerprint: remove its file from project and user space
 * (or only `space`). System keys cannot be removed.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT, TRUST_KEY_NOT_FOUND, SPACE_READ_ONLY
 */
export async function removeTrustedKey(
  spaces: Spaces,
  fingerprint: string,
  options: { space?: SpaceName } = {},
): Promise<string[]> {
  if (!FINGERPRINT_RE.test(fingerprint)) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot remove "${fingerprint}": a fingerprint is 16 lowercase hex characters`,
      {
        fingerprint,
      },
    );
  }
  if (options.space === 'system') {
    throw new RyeError(
      'SPACE_READ_ONLY',
      'Cannot remove a trusted key from system space: it is read-only',
      {},
    );
  }
  const spacesToTry: SpaceName[] =
    options.space === undefined ? ['project', 'user'] : [options.space];
  const removed: string[] = [];
  for (const space of spacesToTry) {
    const path = join(trustDir(spaces, space), `${fingerprint}.toml`);
    if (await pathExists(path)) {
      const before = space === 'project' ? await readProjectTrust(spaces) : null;
      await rm(path);
      removed.push(path);
      if (before !== null)
        await keepApproved(spaces, before, { name: `${fingerprint}.toml`, bytes: null });
    }
  }
  if (removed.length === 0) {
    const inSystem = await pathExists(join(trustDir(spaces, 'system'), `${fingerprint}.toml`));
    throw new RyeError(
      inSystem ? 'SPACE_READ_ONLY' : 'TRUST_KEY_NOT_FOUND',
      inSystem
        ? `Cannot remove ${fingerprint}: it is trusted by system space, which is read-only`
        : `Cannot remove ${fingerprint}: no trusted key with that fingerprint in ${spacesToTry.join(' or ')} space`,
      { fingerprint },
    );
  }
  return removed;
}

/**
 * Make sure the signer's own key is trusted in user space (first signing).
 * Returns the path written, or null when it was trusted already.
 */
export async function ensureSelfTrusted(
  spaces: Spaces,
  signer: { fingerprint: string; publicKeyPem: string },
): Promise<string | null> {
  const path = join(trustDir(spaces, 'user'), `${signer.fingerprint}.toml`);
  if (await pathExists(path)) return null;
  await writeFileAtomic(
    path,
    formatTrustToml({
      fingerprint: signer.fingerprint,
      owner: 'self',
      attestation: '',
      publicKeyPem: signer.publicKeyPem,
    }),
  );
  return path;
}

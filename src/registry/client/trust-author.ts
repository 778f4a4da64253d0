import { formatTrustToml } from '../../integrity/index.js';
import { keepApproved, readProjectTrust } from '../../items/index.js';
import { writeFileAtomic } from '../../platform/index.js';
import { inspectTarget } from './project-paths.js';
import type { RegistrySession } from './session.js';

export interface TrustedAuthor {
  readonly fingerprint: string;
  readonly path: string;
  readonly owner: string;
  /** False when a file for this fingerprint was there already (it is never replaced). */
  readonly added: boolean;
}

/**
 * Record a pulled item's author key in the PROJECT trust store as
 * `<project>/.ai/trusted_keys/<fp>.toml`, owner `<namespace>@<host:port>`, so
 * the pulled files keep verifying offline. An existing file for the
 * fingerprint is left alone. The store's approval (docs/trust.md) follows the
 * pull only when the store was approved or empty before it.
 *
 * @throws RyeError INTEGRITY_SYMLINK_ESCAPE, REGISTRY_PULL_CONFLICT, FILE_WRITE_FAILED,
 *   TRUST_APPROVALS_INVALID
 */
export async function trustAuthorKey(
  session: RegistrySession,
  author: { readonly fingerprint: string; readonly publicKeyPem: string },
  namespace: string,
  registryFingerprint: string,
): Promise<TrustedAuthor> {
  const owner = `${namespace}@${session.endpoint.identity}`;
  const target = await inspectTarget(
    session.spaces.project,
    `.ai/trusted_keys/${author.fingerprint}.toml`,
  );
  const result = { fingerprint: author.fingerprint, path: target.absolute, owner };
  if (target.kind !== 'missing') return { ...result, added: false };
  const before = await readProjectTrust(session.spaces);
  const bytes = Buffer.from(
    formatTrustToml({
      fingerprint: author.fingerprint,
      owner,
      attestation: `rye-registry@${namespace} ${session.endpoint.url} key ${registryFingerprint}`,
      publicKeyPem: author.publicKeyPem,
    }),
    'utf8',
  );
  await writeFileAtomic(target.absolute, bytes);
  // The user asked for this pull: an approved (or empty) project store stays
  // approved with this key; one holding unapproved keys stays pending.
  await keepApproved(session.spaces, before, { name: `${author.fingerprint}.toml`, bytes });
  return { ...result, added: true };
}

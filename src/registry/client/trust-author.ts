import { isRyeError } from '../../errors/index.js';
import {
  canonicalPem,
  formatTrustToml,
  keyScopeJson,
  readTrustFile,
  type KeyScope,
  type ScopeItemType,
  type TrustedKey,
} from '../../integrity/index.js';
import { keepApproved, readProjectTrust } from '../../items/index.js';
import { basename } from 'node:path';
import { writeFileAtomic } from '../../platform/index.js';
import { inspectTarget } from './project-paths.js';
import type { RegistrySession } from './session.js';

export interface TrustedAuthor {
  readonly fingerprint: string;
  readonly path: string;
  readonly owner: string;
  /** False when a file for this fingerprint was there already. */
  readonly added: boolean;
  /** True when a file an earlier pull wrote had its scope widened to this pull. */
  readonly extended: boolean;
  /** The ids and types the key may sign after this pull (null: unrestricted). */
  readonly scope: KeyScope | null;
}

/** A {@link TrustedAuthor} as a pull's JSON result reports it (`scope` as `{ids, item_types}`). */
export function trustedAuthorJson(trusted: TrustedAuthor): Record<string, unknown> {
  return { ...trusted, scope: trusted.scope === null ? null : keyScopeJson(trusted.scope) };
}

/** What one pull may let its author sign: the ids pulled, for the types pulled. */
export interface PulledScope {
  readonly ids: readonly string[];
  readonly itemTypes: readonly ScopeItemType[];
}

/** Every type a bundle holds, and its manifest. */
export const BUNDLE_ITEM_TYPES: readonly ScopeItemType[] = [
  'directive',
  'tool',
  'knowledge',
  'bundle',
];

/**
 * Record a pulled item's author key in the PROJECT trust store as
 * `<project>/.ai/trusted_keys/<fp>.toml`, owner `<namespace>@<host:port>`,
 * scoped to what was pulled (`scope` = the ids, `item_types` = the types), so
 * the pulled files keep verifying offline and the author's key signs nothing
 * else in the project. A later pull by the same author from the same registry
 * and namespace widens that file's scope to the new ids (and types): a file
 * is widened only when its owner and attestation are exactly those a pull
 * writes and its key is the same. Any other file for the fingerprint (trusted
 * by the user, unrestricted, or unreadable) is left alone.
 * The store's approval (docs/trust.md) follows the pull only when the store
 * was approved or empty before it.
 *
 * @throws RyeError INTEGRITY_SYMLINK_ESCAPE, REGISTRY_PULL_CONFLICT, FILE_WRITE_FAILED,
 *   TRUST_APPROVALS_INVALID
 */
export async function trustAuthorKey(
  session: RegistrySession,
  author: { readonly fingerprint: string; readonly publicKeyPem: string },
  namespace: string,
  registryFingerprint: string,
  pulled: PulledScope,
): Promise<TrustedAuthor> {
  const owner = `${namespace}@${session.endpoint.identity}`;
  const attestation = `rye-registry@${namespace} ${session.endpoint.url} key ${registryFingerprint}`;
  const target = await inspectTarget(
    session.spaces.project,
    `.ai/trusted_keys/${author.fingerprint}.toml`,
  );
  const result = { fingerprint: author.fingerprint, path: target.absolute, owner };
  const record = { fingerprint: author.fingerprint, owner, attestation };
  if (target.kind === 'missing') {
    const scope: KeyScope = { ids: [...pulled.ids], itemTypes: [...pulled.itemTypes] };
    await writeApproved(
      session,
      target.absolute,
      formatTrustToml({ ...record, publicKeyPem: author.publicKeyPem, scopes: [scope] }),
    );
    return { ...result, added: true, extended: false, scope };
  }
  const existing = target.kind === 'file' ? await readOrNull(target.absolute) : null;
  const scope = existing?.scopes?.[0] ?? null;
  const ours =
    existing !== null &&
    existing.owner === owner &&
    existing.attestation === attestation &&
    canonicalPem(existing.publicKeyPem) === canonicalPem(author.publicKeyPem) &&
    existing.scopes?.length === 1;
  if (!ours || scope === null) return { ...result, added: false, extended: false, scope };
  const widened = widen(scope, pulled);
  if (widened === scope) return { ...result, added: false, extended: false, scope };
  await writeApproved(
    session,
    target.absolute,
    formatTrustToml({ ...record, publicKeyPem: existing.publicKeyPem, scopes: [widened] }),
  );
  return { ...result, added: false, extended: true, scope: widened };
}

/**
 * Write a project trust file for a pull the user asked for: an approved (or
 * empty) project store stays approved with this change; one holding
 * unapproved keys stays pending.
 */
async function writeApproved(session: RegistrySession, path: string, text: string): Promise<void> {
  const before = await readProjectTrust(session.spaces);
  const bytes = Buffer.from(text, 'utf8');
  await writeFileAtomic(path, bytes);
  await keepApproved(session.spaces, before, { name: basename(path), bytes, replaces: true });
}

/** `scope` plus the pulled ids and types, or `scope` itself when it has them all. */
function widen(scope: KeyScope, pulled: PulledScope): KeyScope {
  const add = <T>(have: readonly T[] | null, more: readonly T[]): readonly T[] | null =>
    have === null || more.every((m) => have.includes(m)) ? have : [...new Set([...have, ...more])];
  const ids = add(scope.ids, pulled.ids);
  const itemTypes = add(scope.itemTypes, pulled.itemTypes);
  return ids === scope.ids && itemTypes === scope.itemTypes ? scope : { ids, itemTypes };
}

async function readOrNull(path: string): Promise<TrustedKey | null> {
  try {
    return await readTrustFile(path);
  } catch (error) {
    if (isRyeError(error)) return null;
    throw error;
  }
}

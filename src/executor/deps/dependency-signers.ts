/**
 * One signer per tool folder (issue 30): every file a tool can load from its
 * dependency scope is vouched for by the tool's own signer or by the user's
 * own key. Trust is not enough: a registry author's key trusted for bundle
 * `apps` verifies a `sitecustomize.py` it planted in `.ai/tools/apps/todo2/`
 * (its scope `apps/**` covers the user's tool `apps/todo2/todo2`), and the
 * user's tool would load it.
 */
import { RyeError } from '../../errors/index.js';
import type { TrustSet } from '../../integrity/index.js';

/** A dependency file and the key that vouched for it (null: pinned by hash, by the user). */
export interface SignedDependency {
  readonly relativePath: string;
  readonly absolutePath: string;
  readonly signer: string | null;
}

export interface SignerRule {
  readonly toolId: string;
  /** Fingerprint of the key that signed the tool itself. */
  readonly toolSigner: string;
  /** Fingerprint of the user's own key, or null when there is none. */
  readonly ownKey: string | null;
  /** Names the keys in the message. */
  readonly trust: TrustSet;
}

/**
 * Refuse the first file (in path order) that a third key vouches for. Files
 * without a signer (third-party code the user pinned) pass. Pure.
 *
 * @throws RyeError EXECUTOR_DEPENDENCY_SIGNER_MIXED naming the file and both signers.
 */
export function assertOneSigner(files: readonly SignedDependency[], rule: SignerRule): void {
  for (const file of files) {
    const { signer } = file;
    if (signer === null || signer === rule.toolSigner || signer === rule.ownKey) continue;
    const name = (fp: string): string => `${rule.trust.get(fp)?.owner ?? 'unknown'} (${fp})`;
    throw new RyeError(
      'EXECUTOR_DEPENDENCY_SIGNER_MIXED',
      `Cannot run ${rule.toolId}: its dependency ${file.relativePath} is signed by ${name(signer)}, the tool by ${name(rule.toolSigner)}; a tool's folder holds only files of the tool's signer or your own key`,
      {
        toolId: rule.toolId,
        path: file.absolutePath,
        relativePath: file.relativePath,
        signer,
        toolSigner: rule.toolSigner,
        ownKey: rule.ownKey,
      },
    );
  }
}

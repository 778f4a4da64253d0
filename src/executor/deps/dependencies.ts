import { RyeError, isRyeError } from '../../errors/index.js';
import type { TrustSet } from '../../integrity/index.js';
import {
  checkDeps,
  trustedSigner,
  type DepsSnapshot,
  type LockInUse,
} from '../../lockfile/index.js';
import { decodeText } from '../../platform/index.js';
import { assertOneSigner, type SignerRule } from './dependency-signers.js';
import { verifyRuntimeLib } from './runtime-lib.js';
import type { VerifyDepsConfig } from '../types.js';
import {
  depsBase,
  hashDependencies,
  verifyDependencies,
  type VerifiedFileCache,
} from './verify-deps.js';

/** A file checked before the spawn (listed in the plan and the verified manifest). */
export interface CheckedFile {
  readonly relativePath: string;
  readonly absolutePath: string;
  readonly rawSha256: string;
  /** The bytes that were checked (the snapshot is written from them, never re-read). */
  readonly raw: Uint8Array;
  /** Lower-case extension that chose the signature format. */
  readonly extension: string;
  /** Third-party code pinned by hash (no signature). */
  readonly thirdParty: boolean;
}

/** What a v2 lockfile pins of this run's dependencies. */
export type DepsPins = DepsSnapshot;

/** Files of one walked folder. */
export interface CheckedTree {
  /** The folder walked, real path; files are relative to it. */
  readonly base: string;
  readonly files: readonly CheckedFile[];
}

export interface DependencyCheck {
  /** Every checked file: the scope's, then the runtime library's. */
  readonly files: readonly CheckedFile[];
  /** The dependency scope, when one was walked. */
  readonly scope: CheckedTree | null;
  /** The runtime library, when the run uses one. */
  readonly lib: CheckedTree | null;
  /** Scope files nothing authenticates (relative paths): they are not in the snapshot. */
  readonly leftOut: readonly string[];
  /** The anchor scope's pins for a new lockfile, or null when no deps were verified. */
  readonly pins: DepsPins | null;
  /** True when the lockfile fast path replaced per-file signature checks. */
  readonly fastPath: boolean;
}

export interface DependencyInput {
  readonly toolId: string;
  readonly toolPath: string;
  readonly anchorPath: string | null;
  readonly config: VerifyDepsConfig | null;
  readonly runtimeLib: string | null;
  /** The runtime declaring `runtimeLib` (its files are verified as that runtime). */
  readonly runtimeId?: string | null;
  /** Base folder of the root tool's space: lockfile anchor paths are relative to it. */
  readonly spaceBase: string;
  readonly lock: LockInUse | null;
  readonly trust: TrustSet;
  readonly cache: VerifiedFileCache;
  /**
   * Accepts unsigned files listed (with this hash) by a verified bundle
   * manifest: the manifest's signer (fingerprint), else undefined.
   */
  readonly manifestCovers?: (absolutePath: string, rawSha256: string) => string | undefined;
  /**
   * Who may vouch for the scope's files: the tool's own signer and the user's
   * own key (see dependency-signers.ts). Absent: not checked (a caller with
   * no tool, such as a runtime library's check).
   */
  readonly signers?: Omit<SignerRule, 'trust'>;
  /** Whether a verified bundle manifest lists the path (see VerifyDepsInput.manifestLists). */
  readonly manifestLists?: (absolutePath: string) => boolean;
  /** Pin third-party files by hash (`rye lock update`): the user's explicit approval. */
  readonly acceptThirdParty?: boolean;
}

/**
 * Step 6: every file the run can load, checked before the spawn. With a
 * lockfile whose own signature is trusted, the dependency scope is only walked
 * and hashed, and compared with the pins (added and removed files included);
 * otherwise every file's signature is verified (cached by content), then
 * compared with the pins when there is a lockfile. The runtime library is
 * always verified when used. Every verified scope file must be vouched for by
 * the tool's signer or the user's own key (`signers`). The fast path does not
 * look again: the user's own lockfile pins each file's raw bytes, signature
 * line included, as a run that passed this check saw them.
 *
 * @throws RyeError INTEGRITY_* / FILE_* naming the file, INTEGRITY_SYMLINK_ESCAPE,
 *   EXECUTOR_DEPENDENCY_SIGNER_MIXED, LOCKFILE_MISMATCH, LOCKFILE_STALE
 */
export async function checkDependencies(input: DependencyInput): Promise<DependencyCheck> {
  const { config, anchorPath, lock, trust, cache } = input;
  let scope: CheckedTree | null = null;
  let lib: CheckedTree | null = null;
  let pins: DepsPins | null = null;
  let fastPath = false;
  let leftOut: readonly string[] = [];
  const base =
    config !== null && config.enabled && anchorPath !== null
      ? depsBase(config, input.toolPath, anchorPath)
      : null;
  if (config !== null && base !== null && anchorPath !== null) {
    const pinned = lock?.found.lockfile.verifiedDeps;
    if (lock !== null && lock.trusted && pinned !== undefined) {
      const hashed = hashDependencies({ base, config, ...lists(input) });
      pins = pinsOf(base, config, hashed.files);
      checkPinned(input, lock, pins, hashed.files);
      scope = { base: hashed.base, files: hashed.files };
      leftOut = hashed.leftOut;
      fastPath = true;
    } else {
      const report = await verifyDependencies({
        base,
        config,
        trust,
        cache,
        subject: { itemId: input.toolId, itemType: 'tool' },
        acceptThirdParty: input.acceptThirdParty === true,
        ...lists(input),
        ...(input.manifestCovers === undefined ? {} : { manifestCovers: input.manifestCovers }),
      }).catch((error: unknown) => {
        throw withPinHint(error, input.toolId);
      });
      if (input.signers !== undefined) assertOneSigner(report.files, { ...input.signers, trust });
      pins = pinsOf(base, config, report.files);
      if (lock !== null) checkPinned(input, lock, pins, report.files);
      scope = { base: report.base, files: report.files };
      leftOut = report.leftOut;
    }
  } else if (lock !== null) {
    checkDeps(input.toolId, lock, null, input.spaceBase);
  }
  if (input.runtimeLib !== null) {
    const report = await verifyRuntimeLib(input.runtimeLib, trust, cache, input.runtimeId ?? null);
    if (report !== null) lib = { base: report.base, files: report.files };
  }
  const files = [...(scope?.files ?? []), ...(lib?.files ?? [])];
  return { files, scope, lib, leftOut, pins, fastPath };
}

function pinsOf(base: string, config: VerifyDepsConfig, files: readonly CheckedFile[]): DepsPins {
  // Files are pinned relative to the folder walked (the anchor, or the tool's folder).
  return {
    anchorPath: base,
    scope: config.scope,
    files: new Map(files.map((f) => [f.relativePath, f.rawSha256])),
  };
}

/** Compare with the pins; a changed or added file re-signed after the pin makes it stale. */
function checkPinned(
  input: DependencyInput,
  lock: LockInUse,
  pins: DepsPins,
  files: readonly CheckedFile[],
): void {
  // A changed file's signer is read from the bytes already checked, never from a second read.
  const byPath = new Map(files.map((f) => [f.relativePath, f]));
  checkDeps(input.toolId, lock, pins, input.spaceBase, (rel) => {
    const file = byPath.get(rel);
    if (file === undefined) return null;
    try {
      return trustedSigner(decodeText(file.raw, file.absolutePath), file.extension, input.trust);
    } catch {
      return null; // binary: it carries no signature, so a plain mismatch
    }
  });
}

function lists(input: DependencyInput): { manifestLists?: (absolutePath: string) => boolean } {
  return input.manifestLists === undefined ? {} : { manifestLists: input.manifestLists };
}

/** Third-party code is approved by pinning it: the refusal says how. */
function withPinHint(error: unknown, toolId: string): unknown {
  if (!isRyeError(error, 'EXECUTOR_THIRD_PARTY_UNPINNED')) return error;
  const fix = `rye lock update ${toolId}`;
  return new RyeError(
    error.code,
    `${error.message}; review it, then run \`${fix}\` to pin it by hash`,
    { ...(error.details as object), toolId, fix },
    { cause: error },
  );
}

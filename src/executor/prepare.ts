import { join } from 'node:path';
import { mayHaveBundlesFor, type VerifiedManifestCache } from '../bundle/index.js';
import { RyeError } from '../errors/index.js';
import { bodyWithoutSignature, verifyText, type TrustSet } from '../integrity/index.js';
import { extractMetadata, loadSpaceTrust, resolveItem, type Spaces } from '../items/index.js';
import {
  checkChainShape,
  checkLockfile,
  checkPins,
  readOwnKey,
  type FoundLockfile,
  type LockInUse,
} from '../lockfile/index.js';
import { readTextFileSync } from '../platform/index.js';
import {
  anchorApplies,
  anchorContext,
  findAnchorConfig,
  findAnchorElement,
  findVerifyDepsConfig,
  resolveAnchorPath,
} from './chain/anchor.js';
import { buildChain } from './chain/chain.js';
import { checkDependencies, type DependencyCheck } from './deps/dependencies.js';
import { PRIMITIVES, mergeChainConfig } from './run/primitive-config.js';
import { tsLoaderUrl } from './run/ts-loader.js';
import type { AnchorConfig, ChainElement, TemplateVars } from './types.js';
import type { VerifiedFileCache } from './deps/verify-deps.js';

/** A file a verified bundle manifest lists, and that manifest's signer (fingerprint). */
export interface BundleFile {
  readonly absolutePath: string;
  readonly rawSha256: string;
  readonly signer: string;
}

/** Which lockfile a preparation checks against. */
export type LockMode =
  | { readonly mode: 'find'; readonly frozen: boolean }
  | { readonly mode: 'ignore' }
  | { readonly mode: 'given'; readonly found: FoundLockfile };

/** Everything checked before a spawn (steps 1–6), ready to plan and run. */
export interface PreparedRun {
  readonly lock: LockInUse | null;
  readonly chain: readonly ChainElement[];
  /** The anchor config when it applies, else null. */
  readonly anchor: AnchorConfig | null;
  readonly vars: TemplateVars;
  readonly deps: DependencyCheck;
  /**
   * Files listed by the verified manifests of the bundles the tool belongs to
   * (absolute path → raw SHA-256): handed to the run so runtime loaders can
   * authenticate app files lazily and refuse unlisted ones.
   */
  readonly bundleFiles: readonly BundleFile[];
  /** Those bundles' declared app folders (real paths): runtime loaders refuse unlisted files there. */
  readonly bundleRoots: readonly string[];
}

/**
 * Steps 1–6: the lockfile (found by precedence, ignored, or one given), the
 * chain built and every element verified, the anchor, and every dependency
 * file checked. Shared by execute, `rye lock update` and `rye lock verify`.
 *
 * @throws RyeError every refusal code of the steps it runs.
 */
export async function prepareRun(
  spaces: Spaces,
  toolId: string,
  options: {
    readonly trust: TrustSet;
    readonly cache: VerifiedFileCache;
    readonly lock: LockMode;
    /** Pin third-party dependency files by hash (`rye lock update` only). */
    readonly acceptThirdParty?: boolean;
  },
): Promise<PreparedRun> {
  const { trust, cache } = options;
  // A lockfile given (`rye lock verify`) is compared first: its pins name what
  // changed. Otherwise the chain is verified before anything it declares is
  // believed: the lockfile is found by the version the *verified* tool declares.
  const given =
    options.lock.mode === 'given'
      ? await checkPins(spaces, toolId, options.lock.found, trust)
      : null;
  const { chain, verifications } = await buildChain(spaces, toolId, trust);
  const tool = chain[0] as ChainElement;
  const lock =
    given ?? (await lockFor(spaces, toolId, tool.version ?? '0.0.0', trust, options.lock, chain));
  if (lock !== null) checkChainShape(toolId, lock, chain);
  const primitive = chain.at(-1) as ChainElement;
  if (primitive.itemId !== PRIMITIVES.subprocess && primitive.itemId !== PRIMITIVES.httpClient) {
    throw new RyeError(
      'EXECUTOR_PRIMITIVE_UNKNOWN',
      `Cannot run ${toolId}: no built-in primitive ${primitive.itemId}`,
      {
        primitive: primitive.itemId,
      },
    );
  }
  const anchorConfig = findAnchorConfig(chain);
  let vars: TemplateVars = {
    ...anchorContext(chain, {
      projectPath: spaces.project,
      userSpace: spaces.user,
      systemSpace: spaces.system,
      paramsJson: '',
    }),
    // Resolving tsx costs ~2 ms: only when a verified element's metadata (where
    // every template comes from) can name it; a Python tool's chain cannot.
    ...(mentionsTsLoader(chain) ? { ts_loader: tsLoaderUrl() } : {}),
  };
  const applied = anchorConfig !== null && anchorApplies(anchorConfig, vars.tool_dir);
  if (applied) vars = { ...vars, anchor_path: resolveAnchorPath(anchorConfig, vars) };
  // The runtime library is verified whenever the run can load from it: on the
  // anchor's paths, or named in the primitive's config (node_runtime's --import).
  const libUsed = applied || JSON.stringify(mergeChainConfig(chain)).includes('{runtime_lib}');
  const { files: bundleFiles, roots: bundleRoots } = await bundleFilesFor(spaces, tool.path, trust);
  const listed = new Map(bundleFiles.map((f) => [f.absolutePath, f]));
  // buildChain verified the tool, so it has a signer; none would let only your key vouch.
  const toolSigner = verifications[0]?.fingerprint ?? '';
  const deps = await checkDependencies({
    toolId,
    toolPath: tool.path,
    anchorPath: applied ? vars.anchor_path : null,
    config: findVerifyDepsConfig(chain),
    runtimeLib: libUsed && vars.runtime_lib !== '' ? vars.runtime_lib : null,
    runtimeId: findAnchorElement(chain)?.itemId ?? null,
    spaceBase: spaces[tool.space],
    lock,
    trust,
    cache,
    acceptThirdParty: options.acceptThirdParty === true,
    // No mixed signers in a tool folder: the tool's signer or the user's own key.
    signers: { toolId, toolSigner, ownKey: readOwnKey(spaces)?.fingerprint ?? null },
    ...(listed.size === 0
      ? {}
      : {
          manifestCovers: (path: string, sha: string) => {
            const entry = listed.get(path);
            return entry?.rawSha256 === sha ? entry.signer : undefined;
          },
          manifestLists: (path: string) => listed.has(path),
        }),
  });
  return {
    lock,
    chain,
    anchor: applied ? anchorConfig : null,
    vars,
    deps,
    bundleFiles,
    bundleRoots,
  };
}

/**
 * Whether any chain element's metadata holds the text `ts_loader` in a string
 * or key: a superset of the elements whose templates reference `{ts_loader}`.
 * The verified bytes are not searched (they may spell the name with escapes);
 * a value of a kind not walked here counts as a mention.
 */
function mentionsTsLoader(chain: readonly ChainElement[]): boolean {
  const mentions = (value: unknown): boolean => {
    if (typeof value === 'string') return value.includes('ts_loader');
    if (value === null || typeof value !== 'object') return false;
    if (value instanceof Uint8Array) return false;
    if (Array.isArray(value)) return value.some(mentions);
    if (value instanceof Map) return [...value].some(([k, v]) => mentions(k) || mentions(v));
    if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
      return true;
    return Object.entries(value).some(([k, v]) => mentions(k) || mentions(v));
  };
  return chain.some((element) => mentions({ ...element, raw: undefined }));
}

async function lockFor(
  spaces: Spaces,
  toolId: string,
  version: string,
  trust: TrustSet,
  mode: LockMode,
  chain: readonly ChainElement[],
): Promise<LockInUse | null> {
  if (mode.mode !== 'find') return null;
  return checkLockfile(spaces, toolId, version, trust, mode.frozen, chain);
}

/**
 * The root tool's declared version, read only after its signature verified
 * (nothing is parsed from unauthenticated bytes).
 *
 * @throws RyeError ITEM_NOT_FOUND and the INTEGRITY_* / FILE_* codes of the tool file.
 */
export async function rootVersion(
  spaces: Spaces,
  toolId: string,
  trust?: TrustSet,
): Promise<string> {
  const item = await resolveItem(spaces, 'tool', toolId);
  const text = readTextFileSync(item.path);
  const verification = verifyText(text, {
    itemType: 'tool',
    extension: item.extension,
    trust: trust ?? (await loadSpaceTrust(spaces)).trust,
    path: item.path,
    subject: { itemId: item.itemId, itemType: 'tool' },
  });
  if (!verification.ok) {
    throw new RyeError(
      verification.code ?? 'INTEGRITY_UNSIGNED',
      `Cannot read the version of ${toolId}: ${verification.message}`,
      { itemId: toolId, path: item.path, verdict: verification.verdict },
    );
  }
  const metadata = await extractMetadata(
    'tool',
    item.extension,
    bodyWithoutSignature(text, 'tool', item.extension),
    item.path,
  );
  const version = metadata.kind === 'tool' ? metadata.fields.version : undefined;
  return typeof version === 'string' ? version : '0.0.0';
}

let manifestCache: VerifiedManifestCache | undefined;

/**
 * The entries of every verified bundle manifest covering the tool (its
 * manifest verified once, cached by real path and content hash). Manifests
 * that fail verification cover nothing.
 */
async function bundleFilesFor(
  spaces: Spaces,
  toolPath: string,
  trust: TrustSet,
): Promise<{ files: BundleFile[]; roots: string[] }> {
  // Most tools are in no bundle: then the bundle code and its YAML parser are never loaded.
  if (!mayHaveBundlesFor(spaces, toolPath)) return { files: [], roots: [] };
  const { findBundlesFor, VerifiedManifestCache } = await import('../bundle/index.js');
  manifestCache ??= new VerifiedManifestCache();
  // Only the manifests that could cover the tool are read (a tool under `.ai/`
  // is covered only by its own bundle's): a project's other bundles cost nothing.
  const { covering } = await findBundlesFor(spaces, toolPath, {
    trust,
    cache: manifestCache,
    skipUnrelated: true,
  });
  const files: BundleFile[] = [];
  const roots = new Set<string>();
  for (const { verified } of covering) {
    for (const [rel, entry] of verified.manifest.files) {
      files.push({
        absolutePath: join(verified.baseDir, ...rel.split('/')),
        rawSha256: entry.sha256,
        signer: verified.fingerprint,
      });
    }
    for (const folder of verified.manifest.bundle.includes)
      roots.add(join(verified.baseDir, ...folder.split('/')));
  }
  return { files, roots: [...roots] };
}

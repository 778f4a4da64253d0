/**
 * `rye bundle verify` (seed 002, "Verification"): the manifest's signature
 * first, then every listed file's hash, the inline signatures it claims, and
 * files that joined the bundle's folders since it was signed.
 */
import { existsSync, realpathSync } from 'node:fs';
import { join, sep } from 'node:path';
import { RyeError, isRyeError, type ErrorCode } from '../errors/index.js';
import {
  hexDigestsEqual,
  verifyTextAsync,
  type TrustSet,
  type Verdict,
} from '../integrity/index.js';
import { SPACE_NAMES, aiDir, type SpaceName, type Spaces } from '../items/index.js';
import { decodeText, mapLimit, readFileCappedStatSync } from '../platform/index.js';
import { isNodeModulesPath } from './bundle-lane.js';
import { walkBundlePaths } from './collect.js';
import { digestFiles } from './digest-files.js';
import { READ_CONCURRENCY, readDigest, unreadableFile, type ProgressFn } from './hash-files.js';
import { inlineSignatureFailure } from './inline-signature.js';
import { MAX_MANIFEST_BYTES, parseManifest } from './manifest-parse.js';
import { bundleManifestPath, comparePaths } from './manifest-path.js';
import { manifestScopeProblem } from './manifest-scope.js';
import type { ManifestEntry } from './types.js';

export interface VerifyBundleInput {
  readonly spaces: Spaces;
  readonly bundleId: string;
  readonly trust: TrustSet;
  /** Exclude names used to look for unlisted files (the manifest does not record them). */
  readonly exclude?: readonly string[];
  /** Called as listed files are checked. */
  readonly onProgress?: ProgressFn;
}

/** The manifest's own signature check. */
export interface ManifestCheck {
  readonly ok: boolean;
  readonly verdict: Verdict;
  readonly code: ErrorCode | null;
  readonly message: string;
  readonly fingerprint: string | null;
  readonly signer: string | null;
}

export interface BundleFileReport {
  readonly ok: string[];
  readonly missing: string[];
  /** `actual` is null when the path is no longer a regular file (a link, a folder). */
  readonly tampered: { path: string; expected: string; actual: string | null }[];
  /** In the bundle's folders but not in the manifest (links and special files too). */
  readonly unlisted: string[];
  readonly badSignature: { path: string; code: ErrorCode; message: string }[];
}

export interface BundleReport {
  /** True only when the manifest verified and every list but `files.ok` is empty. */
  readonly ok: boolean;
  readonly bundleId: string;
  /** null when the manifest did not verify (its body is not read). */
  readonly version: string | null;
  readonly space: SpaceName;
  readonly manifestPath: string;
  readonly manifest: ManifestCheck;
  readonly files: BundleFileReport;
  readonly counts: Readonly<Record<'listed' | keyof BundleFileReport, number>>;
}

/**
 * Verify a bundle found project → user → system. A failed check is a report,
 * never an exception; when the manifest's signature fails no file is read.
 *
 * @throws RyeError BUNDLE_NOT_FOUND, ITEM_ID_INVALID, BUNDLE_MANIFEST_INVALID
 *   (a hostile or foreign manifest: refused before any listed file is read),
 *   FILE_UNREADABLE / FILE_TOO_LARGE (I/O).
 */
export async function verifyBundle(input: VerifyBundleInput): Promise<BundleReport> {
  const { spaces, bundleId, trust } = input;
  const found = await findManifest(spaces, bundleId);
  const { space, path } = found;
  // Read synchronously (the same steps and refusals as readFileCapped): a
  // thread-pool trip costs more than reading the manifest does.
  const bytes = readFileCappedStatSync(path, MAX_MANIFEST_BYTES);
  const files: BundleFileReport = {
    ok: [],
    missing: [],
    tampered: [],
    unlisted: [],
    badSignature: [],
  };
  const report = (manifest: ManifestCheck, version: string | null, listed: number) =>
    finish({ bundleId, version, space, manifestPath: path, manifest }, files, listed);

  let text: string;
  try {
    text = decodeText(bytes, path);
  } catch (error) {
    // Defensive: decodeText throws only RyeErrors; a bug must not become a verdict.
    /* v8 ignore if */
    if (!isRyeError(error)) throw error;
    return report(
      {
        ok: false,
        verdict: 'unreadable',
        code: error.code,
        message: error.message,
        fingerprint: null,
        signer: null,
      },
      null,
      0,
    );
  }
  const verdict = await verifyTextAsync(text, {
    itemType: 'tool',
    extension: '.yaml',
    trust,
    path,
    // Only a key scoped for this bundle (or unrestricted) speaks for its files.
    subject: { itemId: bundleId, itemType: 'bundle' },
  });
  const { ok, code, message, fingerprint, signer } = verdict;
  const check: ManifestCheck = { ok, verdict: verdict.verdict, code, message, fingerprint, signer };
  if (!verdict.ok) return report(check, null, 0);

  const manifest = parseManifest(text, path);
  // A verified manifest may still only speak for its own bundle's files.
  const outOfScope = manifestScopeProblem(manifest, bundleId);
  if (outOfScope !== undefined) {
    throw new RyeError(
      'BUNDLE_MANIFEST_INVALID',
      `Cannot verify bundle ${bundleId}: manifest ${path} is refused: ${outOfScope}`,
      { source: path, bundleId },
    );
  }
  // Real path of the base: a listed path must resolve inside it without passing a link.
  const base = realpathSync(spaces[space]);
  // The folders are walked for unlisted files while the listed ones are hashed.
  const walking = walkBundlePaths(base, bundleId, manifest.bundle.includes, {
    exclude: input.exclude,
    // A bundle made with its app dependencies is checked for files planted there too.
    nodeModules: someNodeModulesPath(manifest.files.keys()),
    except: manifest.files,
  });
  walking.catch(() => undefined); // awaited below, unless the hashing throws first
  await checkListedFiles(base, manifest.files, trust, files, input.onProgress);
  recordOk(manifest.files, files);
  const walked = await walking;
  for (const found of [walked.files, walked.strays])
    for (const rel of found) files.unlisted.push(rel);
  return report(check, manifest.bundle.version, manifest.files.size);
}

function someNodeModulesPath(paths: Iterable<string>): boolean {
  for (const path of paths) if (isNodeModulesPath(path)) return true;
  return false;
}

/** A listed file: its manifest path, its entry and where it is. */
interface ListedFile {
  readonly rel: string;
  readonly entry: ManifestEntry;
  readonly absolute: string;
}

/**
 * Check every listed file against its entry, recording each that fails in
 * `files` (the others are ok: {@link recordOk}). Those without an inline
 * signature are hashed in bulk (digestFiles, and one pass over the digests
 * when all match); inline-signed ones are read whole and kept, so their
 * signature is checked on exactly the bytes hashed.
 */
async function checkListedFiles(
  base: string,
  listed: ReadonlyMap<string, ManifestEntry>,
  trust: TrustSet,
  files: BundleFileReport,
  onProgress: ProgressFn | undefined,
): Promise<void> {
  const throughLink = linkedFolderCheck();
  // The files without an inline signature, as three lists in manifest order
  // (an object per file costs more than the rest of this loop).
  const plain = { rels: [] as string[], absolutes: [] as string[], sha256s: [] as string[] };
  const signed: ListedFile[] = [];
  // Listed paths passed the path rule (no empty, `.` or `..` segment): joined as they are.
  const prefix = join(base, sep);
  listed.forEach((entry, rel) => {
    const absolute = prefix + rel.replaceAll('/', sep);
    // A folder on the way was swapped for a link: the path no longer names a
    // file of this bundle, whatever its bytes are.
    if (throughLink(absolute))
      files.tampered.push({ path: rel, expected: entry.sha256, actual: null });
    else if (entry.inlineSigned) signed.push({ rel, entry, absolute });
    else {
      plain.rels.push(rel);
      plain.absolutes.push(absolute);
      plain.sha256s.push(entry.sha256);
    }
  });
  const total = listed.size;
  const plainCount = plain.rels.length;
  const skipped = total - plainCount - signed.length;
  const digests = await digestFiles(
    plain.absolutes,
    onProgress === undefined
      ? undefined
      : (done, _n, bytes) => onProgress(skipped + done, total, bytes),
  );
  const read = { bytes: digests.bytes };
  if (!digests.allEqual(plain.sha256s)) {
    read.bytes = 0;
    for (let i = 0; i < plainCount; i += 1) {
      const rel = plain.rels[i] as string;
      const entry = { sha256: plain.sha256s[i] as string, inlineSigned: false };
      const file: ListedFile = { rel, entry, absolute: plain.absolutes[i] as string };
      const outcome = digests.at(i);
      if (outcome.kind === 'large') await checkFile(file, trust, files, read);
      else if (outcome.kind === 'failed')
        recordUnreadable(file, outcome.errno, outcome.message, files);
      else recordDigest(file, outcome, files, read);
    }
  }
  const before = skipped + plainCount;
  await mapLimit(
    signed,
    READ_CONCURRENCY,
    (file) => checkFile(file, trust, files, read),
    onProgress === undefined ? undefined : (done) => onProgress(before + done, total, read.bytes),
  );
}

function finish(
  head: Pick<BundleReport, 'bundleId' | 'version' | 'space' | 'manifestPath' | 'manifest'>,
  files: BundleFileReport,
  listed: number,
): BundleReport {
  // Checks run concurrently: sort every list so a report is deterministic
  // (`ok` is in manifest order already, and it is the long one).
  const byPath = (a: { path: string }, b: { path: string }): number => comparePaths(a.path, b.path);
  files.missing.sort(comparePaths);
  files.unlisted.sort(comparePaths);
  files.tampered.sort(byPath);
  files.badSignature.sort(byPath);
  const counts = {
    listed,
    ok: files.ok.length,
    missing: files.missing.length,
    tampered: files.tampered.length,
    unlisted: files.unlisted.length,
    badSignature: files.badSignature.length,
  };
  const failed = counts.missing + counts.tampered + counts.unlisted + counts.badSignature;
  return { ok: head.manifest.ok && failed === 0, ...head, files, counts };
}

/**
 * Throw when a report is not ok: the manifest's integrity code when its
 * signature failed, else BUNDLE_VERIFY_FAILED; `details.report` holds the report.
 */
export function assertBundleOk(report: BundleReport): void {
  if (report.ok) return;
  const { bundleId, manifest, files } = report;
  if (!manifest.ok) {
    throw new RyeError(
      // A failed check always has its code.
      manifest.code as ErrorCode,
      `Cannot verify bundle ${bundleId}: its manifest did not verify (${manifest.message})`,
      { report },
    );
  }
  // One list at least is not empty: the report is not ok, and its manifest is.
  const first = [
    files.tampered[0]?.path,
    files.missing[0],
    files.badSignature[0]?.path,
    files.unlisted[0],
  ].find((path) => path !== undefined);
  const parts = [
    [files.tampered.length, 'changed'],
    [files.missing.length, 'missing'],
    [files.badSignature.length, 'with a bad inline signature'],
    [files.unlisted.length, 'not listed'],
  ] as const;
  const summary = parts
    .filter(([n]) => n > 0)
    .map(([n, what]) => `${n} ${what}`)
    .join(', ');
  throw new RyeError(
    'BUNDLE_VERIFY_FAILED',
    `Cannot verify bundle ${bundleId}: files ${summary} (first: ${first})`,
    { report },
  );
}

/**
 * The manifest of a bundle by space precedence (project → user → system).
 * @throws RyeError BUNDLE_NOT_FOUND
 */
export async function findManifest(
  spaces: Spaces,
  bundleId: string,
  verb = 'verify',
): Promise<{ space: SpaceName; path: string }> {
  for (const space of SPACE_NAMES) {
    const path = bundleManifestPath(aiDir(spaces, space), bundleId);
    if (existsSync(path)) return { space, path };
  }
  throw new RyeError(
    'BUNDLE_NOT_FOUND',
    `Cannot ${verb} bundle ${bundleId}: no manifest in any space`,
    { bundleId },
  );
}

/** Read one file whole (or streamed when large) and record what it is. */
async function checkFile(
  file: ListedFile,
  trust: TrustSet,
  files: BundleFileReport,
  counted: { bytes: number },
): Promise<void> {
  const { rel, entry } = file;
  let read;
  try {
    // The bytes are kept only to check an inline signature on exactly them.
    read = await readDigest(file.absolute, { keepBytes: entry.inlineSigned });
  } catch (error) {
    // Defensive: readDigest throws only FILE_UNREADABLE (with its errno, or null).
    /* v8 ignore if */
    if (!isRyeError(error, 'FILE_UNREADABLE')) throw error;
    const errno = error.details['errno'] as string | null;
    recordUnreadable(file, errno, error.message, files, error);
    return;
  }
  if (!recordDigest(file, read, files, counted)) return;
  if (entry.inlineSigned && read.bytes !== null) {
    const failure = await inlineSignatureFailure(rel, read.bytes, trust);
    if (failure !== undefined) files.badSignature.push({ path: rel, ...failure });
  }
}

/** Record a digest that differs from the manifest's as tampered. True when it matched. */
function recordDigest(
  file: ListedFile,
  read: { readonly sha256: string; readonly size: number },
  files: BundleFileReport,
  counted: { bytes: number },
): boolean {
  counted.bytes += read.size;
  if (!hexDigestsEqual(read.sha256, file.entry.sha256)) {
    files.tampered.push({ path: file.rel, expected: file.entry.sha256, actual: read.sha256 });
    return false;
  }
  return true;
}

/**
 * Every listed file the checks did not record as missing, tampered or with a
 * bad signature is ok (each lands in exactly one list), in manifest order.
 */
function recordOk(listed: ReadonlyMap<string, ManifestEntry>, files: BundleFileReport): void {
  const failed = new Set<string>(files.missing);
  for (const { path } of [...files.tampered, ...files.badSignature]) failed.add(path);
  for (const rel of listed.keys()) if (!failed.has(rel)) files.ok.push(rel);
}

/**
 * A file that could not be read: gone (missing), a link or not a regular
 * file (tampered); any other error stops the verification (FILE_UNREADABLE).
 */
function recordUnreadable(
  file: ListedFile,
  errno: string | null,
  message: string,
  files: BundleFileReport,
  error?: RyeError,
): void {
  if (errno === 'ENOENT' || errno === 'ENOTDIR') files.missing.push(file.rel);
  else if (errno === null || errno === 'ELOOP')
    files.tampered.push({ path: file.rel, expected: file.entry.sha256, actual: null });
  else throw error ?? unreadableFile(file.absolute, errno, message);
}

/**
 * A check of whether a folder on the way to a file (an absolute path) is a
 * symbolic link (its real path differs). The file itself is opened with
 * O_NOFOLLOW, so only folders need checking: each once per verification, and
 * a file in the same folder as the one before (most, in manifest order) costs
 * one comparison.
 */
function linkedFolderCheck(): (absolute: string) => boolean {
  const linked = new Map<string, boolean>();
  let lastDir = '';
  let lastLinked = false;
  return (absolute) => {
    const slash = absolute.lastIndexOf(sep);
    if (slash === lastDir.length && absolute.startsWith(lastDir)) return lastLinked;
    const dir = absolute.slice(0, slash);
    let isLinked = linked.get(dir);
    if (isLinked === undefined) {
      try {
        isLinked = realpathSync.native(dir) !== dir;
      } catch {
        isLinked = false; // missing: reported by the read
      }
      linked.set(dir, isLinked);
    }
    lastDir = dir;
    lastLinked = isLinked;
    return isLinked;
  };
}

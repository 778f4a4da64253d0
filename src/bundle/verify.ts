/**
 * `rye bundle verify` (seed 002, "Verification"): the manifest's signature
 * first, then every listed file's hash, the inline signatures it claims, and
 * files that joined the bundle's folders since it was signed.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, sep } from 'node:path';
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
    nodeModules: [...manifest.files.keys()].some(isNodeModulesPath),
  });
  walking.catch(() => undefined); // awaited below, unless the hashing throws first
  await checkListedFiles(base, manifest.files, trust, files, input.onProgress);
  const walked = await walking;
  for (const rel of [...walked.files, ...walked.strays]) {
    if (!manifest.files.has(rel)) files.unlisted.push(rel);
  }
  return report(check, manifest.bundle.version, manifest.files.size);
}

/** A listed file: its manifest path, its entry and where it is. */
interface ListedFile {
  readonly rel: string;
  readonly entry: ManifestEntry;
  readonly absolute: string;
}

/**
 * Check every listed file against its entry, recording each in `files`.
 * Those without an inline signature are hashed in bulk (digestFiles, and one
 * comparison when all match); inline-signed ones are read whole and kept, so
 * their signature is checked on exactly the bytes hashed.
 */
async function checkListedFiles(
  base: string,
  listed: ReadonlyMap<string, ManifestEntry>,
  trust: TrustSet,
  files: BundleFileReport,
  onProgress: ProgressFn | undefined,
): Promise<void> {
  const realDirs = new Map<string, string | null>();
  const plain: ListedFile[] = [];
  const signed: ListedFile[] = [];
  // Listed paths passed the path rule (no empty, `.` or `..` segment): joined as they are.
  const prefix = base.endsWith(sep) ? base : base + sep;
  for (const [rel, entry] of listed) {
    const absolute = prefix + (sep === '/' ? rel : rel.split('/').join(sep));
    // A folder on the way was swapped for a link: the path no longer names a
    // file of this bundle, whatever its bytes are.
    if (throughLink(absolute, realDirs))
      files.tampered.push({ path: rel, expected: entry.sha256, actual: null });
    else (entry.inlineSigned ? signed : plain).push({ rel, entry, absolute });
  }
  const total = listed.size;
  const skipped = total - plain.length - signed.length;
  const digests = await digestFiles(
    plain.map((f) => f.absolute),
    onProgress === undefined
      ? undefined
      : (done, _n, bytes) => onProgress(skipped + done, total, bytes),
  );
  const read = { bytes: digests.bytes };
  if (digests.allEqual(plain.map((f) => f.entry.sha256))) {
    for (const file of plain) files.ok.push(file.rel);
  } else {
    read.bytes = 0;
    for (const [i, file] of plain.entries()) {
      const outcome = digests.at(i);
      if (outcome.kind === 'large') await checkFile(file, trust, files, read);
      else if (outcome.kind === 'failed')
        recordUnreadable(file, outcome.errno, outcome.message, files);
      else recordDigest(file, outcome, files, read);
    }
  }
  const before = skipped + plain.length;
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
  // Checks run concurrently: sort every list so a report is deterministic.
  const byPath = (a: { path: string }, b: { path: string }): number => comparePaths(a.path, b.path);
  files.ok.sort(comparePaths);
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
      manifest.code ?? 'BUNDLE_VERIFY_FAILED',
      `Cannot verify bundle ${bundleId}: its manifest did not verify (${manifest.message})`,
      { report },
    );
  }
  const first =
    files.tampered[0]?.path ?? files.missing[0] ?? files.badSignature[0]?.path ?? files.unlisted[0];
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
    `Cannot verify bundle ${bundleId}: files ${summary} (first: ${first ?? '?'})`,
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
    if (!isRyeError(error, 'FILE_UNREADABLE')) throw error;
    const errno = error.details['errno'] as string | null | undefined;
    recordUnreadable(file, errno ?? null, error.message, files, error);
    return;
  }
  if (!recordDigest(file, read, files, counted)) return;
  if (entry.inlineSigned && read.bytes !== null) {
    const failure = await inlineSignatureFailure(rel, read.bytes, trust);
    if (failure !== undefined) {
      files.badSignature.push({ path: rel, ...failure });
      return;
    }
  }
  files.ok.push(rel);
}

/**
 * Record a digest: tampered when it differs from the manifest's, else ok —
 * unless the file carries an inline signature still to check. True when it matched.
 */
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
  if (!file.entry.inlineSigned) files.ok.push(file.rel);
  return true;
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
 * True when a folder on the way to `absolute` is a symbolic link (its real path
 * differs). The file itself is opened with O_NOFOLLOW, so only folders need
 * checking — once each per verification (`realDirs` caches them).
 */
function throughLink(absolute: string, realDirs: Map<string, string | null>): boolean {
  const dir = dirname(absolute);
  let real = realDirs.get(dir);
  if (real === undefined) {
    try {
      real = realpathSync.native(dir);
    } catch {
      real = null; // missing: reported by the read
    }
    realDirs.set(dir, real);
  }
  return real !== null && real !== dir;
}

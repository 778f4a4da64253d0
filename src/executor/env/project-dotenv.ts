/**
 * The project `.env` (docs/environment.md). It counts only when it carries a
 * valid signature by a trusted key, placed and hashed like a `#`-comment tool
 * file. Read once; the text verified is the text parsed.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { RyeError } from '../../errors/index.js';
import {
  loadTrustStore,
  locateCommentSignature,
  normalizeNewlines,
  signatureFormatFor,
  toolHashedText,
  verdictReason,
  verifyText,
  type TrustSet,
} from '../../integrity/index.js';
import { trustStores, type Spaces } from '../../items/index.js';
import { readTextFile, unreadable } from '../../platform/index.js';
import { parseDotenvDetailed } from './dotenv.js';
import { loaderEnvNamesIn } from './loader-env.js';

/** The file name, in the project folder. */
export const DOTENV_FILE = '.env';

/**
 * How `.env` is signed: with the signature-format row of a `.sh` tool (a
 * `# rye:signed:…` line first; the hash covers the rest).
 */
export const DOTENV_SIGNATURE = { itemType: 'tool', extension: '.sh' } as const;

/**
 * The keys that may sign the project `.env`: those of the user and system
 * trust stores. A key in the project's own `.ai/trusted_keys` does not count:
 * the project would vouch for its own file, and that file reaches tools of
 * every space (a user-space tool's URL, say), not only the project's.
 */
export async function loadDotenvTrust(spaces: Spaces): Promise<TrustSet> {
  const stores = trustStores(spaces).filter((store) => store.space !== 'project');
  return (await loadTrustStore(stores)).trust;
}

/** What the project `.env` contributes, as {@link checkDotenvText} found it. */
export type ProjectDotenv =
  | { readonly status: 'absent'; readonly path: string }
  | { readonly status: 'unsigned'; readonly path: string }
  | {
      readonly status: 'signed';
      readonly path: string;
      /** Null-prototype record parsed from the signed text. */
      readonly entries: Readonly<Record<string, string>>;
      readonly fingerprint: string;
      readonly signer: string | null;
      /** Skipped lines, by number (never their content). */
      readonly warnings: readonly string[];
    };

/**
 * Verify `.env` text against `trust` and parse it when the signature holds.
 * Unsigned (no signature line at all) → `unsigned`, nothing parsed. Pure.
 *
 * @throws RyeError with the verdict's integrity code (INTEGRITY_HASH_MISMATCH,
 *   INTEGRITY_UNTRUSTED_KEY, INTEGRITY_BAD_SIGNATURE,
 *   INTEGRITY_SIGNATURE_MISPLACED, INTEGRITY_MALFORMED_SIGNATURE,
 *   INTEGRITY_DUPLICATE_SIGNATURE) naming `path`, when a signature is there
 *   but fails; EXECUTOR_DOTENV_REFUSED when signed text sets a name on the
 *   loader deny-list (`LOADER_ENV_NAMES`).
 */
export function checkDotenvText(text: string, path: string, trust: TrustSet): ProjectDotenv {
  const result = verifyText(text, { ...DOTENV_SIGNATURE, trust, path });
  if (result.code === 'INTEGRITY_UNSIGNED') return { status: 'unsigned', path };
  if (!result.ok || result.fingerprint === null) {
    throw new RyeError(
      result.code ?? 'INTEGRITY_BAD_SIGNATURE',
      `Cannot use ${path}: ${verdictReason(result)}`,
      { path, verdict: result.verdict, fingerprint: result.fingerprint, line: result.line },
    );
  }
  const { entries, warnings } = parseDotenvDetailed(signedText(text));
  const refused = loaderEnvNamesIn(Object.keys(entries));
  if (refused.length > 0) {
    throw new RyeError(
      'EXECUTOR_DOTENV_REFUSED',
      `Cannot use ${path}: it sets ${refused.join(', ')}; names that steer an interpreter or loader are never taken from .env`,
      { path, names: refused },
    );
  }
  return {
    status: 'signed',
    path,
    entries,
    fingerprint: result.fingerprint,
    signer: result.signer,
    warnings,
  };
}

/** The text the signature covers (a verified text always has its line in place). */
function signedText(text: string): string {
  const format = signatureFormatFor(DOTENV_SIGNATURE.itemType, DOTENV_SIGNATURE.extension);
  const normalized = normalizeNewlines(text);
  if (format?.kind !== 'comment') return normalized;
  const located = locateCommentSignature(normalized, format);
  return located.status === 'signed' ? toolHashedText(located.body) : normalized;
}

/**
 * Read and check `<projectPath>/.env` (see {@link checkDotenvText}); a missing
 * file is `absent`.
 *
 * @throws RyeError FILE_UNREADABLE, FILE_TOO_LARGE, FILE_BINARY when it is
 *   there but cannot be read as text, and every code of {@link checkDotenvText}.
 */
export async function readProjectDotenv(
  projectPath: string,
  trust: TrustSet | (() => Promise<TrustSet>),
): Promise<ProjectDotenv> {
  const path = join(projectPath, DOTENV_FILE);
  try {
    // Synchronous: checked on every run, where a thread-pool trip costs more than the call.
    lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'absent', path };
    throw unreadable(path, error);
  }
  // The trust stores are read only when there is a .env to check (most runs have none).
  const keys = typeof trust === 'function' ? await trust() : trust;
  return checkDotenvText(await readTextFile(path), path, keys);
}

/**
 * One line for plans and results, never a value: `absent`, `ignored:
 * unsigned`, or `applied: A, B` (the names taken from a signed `.env`;
 * `applied: none` when it supplied none).
 */
export function describeDotenv(dotenv: ProjectDotenv, applied: readonly string[]): string {
  if (dotenv.status === 'absent') return 'absent';
  if (dotenv.status === 'unsigned') return 'ignored: unsigned';
  return `applied: ${applied.length === 0 ? 'none' : applied.join(', ')}`;
}

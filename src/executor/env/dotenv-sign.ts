/**
 * Sign the project `.env` (`rye dotenv sign`): one `# rye:signed:…` line,
 * hashed like a `.sh` tool, so the executor applies the declared names from it.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RyeError } from '../../errors/index.js';
import { signText, type SignedText, type Signer } from '../../integrity/index.js';
import { readTextFile, unreadable, writeFileAtomic } from '../../platform/index.js';
import { parseDotenvDetailed } from './dotenv.js';
import { loaderEnvNamesIn } from './loader-env.js';
import { DOTENV_FILE, DOTENV_SIGNATURE } from './project-dotenv.js';

/** What {@link signProjectDotenv} wrote. */
export interface SignedDotenv {
  readonly path: string;
  readonly signed: SignedText;
  /** Names the file sets, sorted (values withheld: they may be secrets). */
  readonly names: readonly string[];
  /** Skipped lines, by number (never their content). */
  readonly warnings: readonly string[];
}

/**
 * Sign `.env` text (an old signature line is replaced). Pure but for the clock.
 *
 * @throws RyeError EXECUTOR_DOTENV_REFUSED when it sets a name on the loader
 *   deny-list (`LOADER_ENV_NAMES`): rye would refuse to run with it.
 */
export function signDotenvText(
  text: string,
  signer: Signer,
  path: string,
  now?: Date,
): Omit<SignedDotenv, 'path'> {
  const { entries, warnings } = parseDotenvDetailed(text);
  const names = Object.keys(entries).sort();
  const refused = loaderEnvNamesIn(names);
  if (refused.length > 0) {
    throw new RyeError(
      'EXECUTOR_DOTENV_REFUSED',
      `Cannot sign ${path}: it sets ${refused.join(', ')}; names that steer an interpreter or loader are never taken from .env`,
      { path, names: refused },
    );
  }
  const signed = signText(text, {
    ...DOTENV_SIGNATURE,
    signer,
    path,
    ...(now === undefined ? {} : { now }),
  });
  return { signed, names, warnings };
}

/**
 * Sign `<projectPath>/.env` in place (atomic write, file mode kept).
 *
 * @throws RyeError FILE_UNREADABLE (also when there is no `.env`),
 *   FILE_TOO_LARGE, FILE_BINARY, EXECUTOR_DOTENV_REFUSED, FILE_WRITE_FAILED.
 */
export async function signProjectDotenv(
  projectPath: string,
  signer: Signer,
): Promise<SignedDotenv> {
  const path = join(projectPath, DOTENV_FILE);
  let mode: number;
  try {
    mode = (await stat(path)).mode & 0o777;
  } catch (error) {
    throw unreadable(path, error);
  }
  const result = signDotenvText(await readTextFile(path), signer, path);
  await writeFileAtomic(path, result.signed.text, { mode });
  return { path, ...result };
}

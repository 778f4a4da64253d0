import { join } from 'node:path';
import { RyeError, isRyeError } from '../errors/index.js';
import { aiDir, type Spaces } from '../items/index.js';
import { readTextFileSync, writeFileAtomic } from '../platform/index.js';

/** Revoked ceiling-token `jti`s: `<user>/.ai/capabilities/revoked`, one per line. */
export function revocationListPath(spaces: Spaces): string {
  return join(aiDir(spaces, 'user'), 'capabilities', 'revoked');
}

/** 64 KiB holds about 2,000 revocations; a bigger file is refused, never half read. */
export const MAX_REVOCATION_BYTES = 64 * 1024;

const JTI = /^[0-9a-f]{32}$/;

/**
 * Parse a revocation list: one jti (32 lowercase hex digits) per line; blank
 * lines and `#` comments are skipped. Any other line fails the whole list, so
 * a typo can never leave a token it meant to revoke alive. Pure.
 *
 * @throws RyeError MCP_REVOCATIONS_INVALID naming the line
 */
export function parseRevocationList(text: string, path: string): ReadonlySet<string> {
  const revoked = new Set<string>();
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!JTI.test(line))
      throw new RyeError(
        'MCP_REVOCATIONS_INVALID',
        `Cannot use the revocation list ${path}: line ${index + 1} is not a 32-hex-digit jti`,
        { path, line: index + 1 },
      );
    revoked.add(line);
  }
  return revoked;
}

/**
 * Read the revocation list; a missing file is an empty list. Read on every
 * call that checks a ceiling token, so a revocation takes effect at once.
 *
 * @throws RyeError MCP_REVOCATIONS_INVALID (unreadable, too large, not UTF-8, a bad line)
 */
export function readRevocationList(spaces: Spaces): ReadonlySet<string> {
  const path = revocationListPath(spaces);
  let text: string;
  try {
    text = readTextFileSync(path, MAX_REVOCATION_BYTES);
  } catch (error) {
    if (isRyeError(error) && error.code === 'FILE_UNREADABLE' && missing(error.cause))
      return new Set();
    throw new RyeError(
      'MCP_REVOCATIONS_INVALID',
      `Cannot use the revocation list ${path}: ${error instanceof Error ? error.message : String(error)}`,
      { path },
      { cause: error },
    );
  }
  return parseRevocationList(text, path);
}

/**
 * Add `jti` to the revocation list (atomic rewrite). The ceiling tokens
 * holding it are refused from the next call on, by every server.
 *
 * @throws RyeError MCP_REVOCATIONS_INVALID (bad jti or list), FILE_WRITE_FAILED
 */
export async function revokeCeilingJti(spaces: Spaces, jti: string): Promise<void> {
  if (!JTI.test(jti))
    throw new RyeError(
      'MCP_REVOCATIONS_INVALID',
      `Cannot revoke "${jti}": not a 32-hex-digit jti`,
      {
        jti,
      },
    );
  const current = readRevocationList(spaces);
  if (current.has(jti)) return;
  const lines = [...current, jti].map((j) => `${j}\n`).join('');
  await writeFileAtomic(revocationListPath(spaces), `# revoked ceiling tokens (jti)\n${lines}`, {
    mode: 0o600,
    dirMode: 0o700,
  });
}

function missing(cause: unknown): boolean {
  return (cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

// Confinement of the file-system tools to the project folder (issue 17). The
// model chooses every path these tools touch, so each one is untrusted: it must
// be project-relative (no absolute path, no `..`, no NUL, no backslash), it must
// resolve inside the project's real path, a write may not pass through any
// symbolic link, and `.ai/` is written only under `.ai/plans/`. `.git` is never
// written: a planted hook or config would run at the next commit.
// Only node: built-ins here: a tool process starts in ~0.1 s, the rye library
// would add a second to every call.
import { lstatSync, realpathSync } from 'node:fs';
import { join, sep } from 'node:path';

export const MAX_PATH_CHARS = 1024;
/** The most a read returns, in bytes. */
export const MAX_FILE_BYTES = 1024 * 1024;
/**
 * The most a write accepts: node_runtime passes params as one argv element,
 * which Linux caps at 128 KiB (MAX_ARG_STRLEN) with the JSON escaping.
 */
export const MAX_WRITE_BYTES = 96 * 1024;

/** A refusal with a stable code; the tool reports it as `{success:false, code, error}`. */
export class FsError extends Error {
  constructor(code, message, details = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

/**
 * The segments of a project-relative path (`.` and empty segments dropped, so
 * `a//b/` and `./a/b` are `a/b`); `[]` names the project itself.
 *
 * @throws FsError FS_PATH_INVALID
 */
export function parseRelPath(raw) {
  const refuse = (why) =>
    new FsError('FS_PATH_INVALID', `Cannot use path ${JSON.stringify(String(raw).slice(0, 200))}: ${why}`, {
      path: String(raw).slice(0, 200),
    });
  if (typeof raw !== 'string') throw refuse('it is not a string');
  if (raw.length > MAX_PATH_CHARS) throw refuse(`it is longer than ${MAX_PATH_CHARS} characters`);
  if (raw.includes('\0')) throw refuse('it contains a NUL character');
  if (raw.includes('\\')) throw refuse('it contains a backslash (use / between folders)');
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw) || raw.startsWith('~'))
    throw refuse('it is absolute; give a path relative to the project folder');
  const segments = raw.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw refuse('it contains a .. segment');
  return segments;
}

/** The project's real path. @throws FsError FS_PROJECT_MISSING */
export function projectRoot(projectPath) {
  if (typeof projectPath !== 'string' || projectPath === '')
    throw new FsError('FS_PROJECT_MISSING', 'Cannot find the project folder: no --project-path was given');
  try {
    return realpathSync.native(projectPath);
  } catch {
    throw new FsError('FS_PROJECT_MISSING', `Cannot find the project folder ${projectPath}`);
  }
}

/** True when `path` is `root` or below it. */
export function isInside(root, path) {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * The real path of an existing file or folder named by `segments`, after
 * checking it stays inside the project (a link inside the project to another
 * place inside it is fine for reading).
 *
 * @throws FsError FS_NOT_FOUND, FS_PATH_ESCAPE
 */
export function resolveForRead(root, segments, shown) {
  let real;
  try {
    real = realpathSync.native(join(root, ...segments));
  } catch {
    throw new FsError('FS_NOT_FOUND', `Cannot read ${shown}: it does not exist`, { path: shown });
  }
  if (!isInside(root, real))
    throw new FsError('FS_PATH_ESCAPE', `Cannot read ${shown}: it leads outside the project folder`, {
      path: shown,
    });
  return real;
}

/**
 * Refuse a write to `segments`: into `.ai/` outside `.ai/plans/`, into any
 * `.git` folder, or through a symbolic link at any existing component of the
 * path (the target itself included). Compares case-insensitively, for
 * case-insensitive file systems.
 *
 * @throws FsError FS_PATH_INVALID, FS_PATH_PROTECTED, FS_PATH_LINK
 */
export function checkWritable(root, segments, shown) {
  if (segments.length === 0)
    throw new FsError('FS_PATH_INVALID', 'Cannot write the project folder itself: name a file', { path: shown });
  const lower = segments.map((s) => s.toLowerCase());
  if (lower[0] === '.ai' && !(lower[1] === 'plans' && segments.length > 2))
    throw new FsError('FS_PATH_PROTECTED', `Cannot write ${shown}: inside .ai/ only .ai/plans/ is writable`, {
      path: shown,
    });
  if (lower.includes('.git'))
    throw new FsError('FS_PATH_PROTECTED', `Cannot write ${shown}: .git folders are never written`, {
      path: shown,
    });
  let walked = root;
  for (const segment of segments) {
    walked = join(walked, segment);
    let stat;
    try {
      stat = lstatSync(walked);
    } catch (error) {
      // Nothing exists from here on (ENOTDIR: a file where a folder would be,
      // which the write itself then refuses), so no link can either.
      if (error?.code === 'ENOENT' || error?.code === 'ENOTDIR') return;
      throw error;
    }
    if (stat.isSymbolicLink())
      throw new FsError('FS_PATH_LINK', `Cannot write ${shown}: ${walked.slice(root.length + 1)} is a symbolic link`, {
        path: shown,
        link: walked.slice(root.length + 1),
      });
  }
}

/** Print a refusal the executor reports, with its code, and exit 1. */
export function reportFailure(error, respondFn) {
  const code = error instanceof FsError ? error.code : 'FS_IO_FAILED';
  const details = error instanceof FsError ? error.details : { cause: error?.code ?? null };
  respondFn({ success: false, code, error: error instanceof Error ? error.message : String(error), details });
  process.exitCode = 1;
}

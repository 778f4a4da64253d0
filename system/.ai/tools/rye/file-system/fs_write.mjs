// Write text files inside the project folder (issue 17): one (`path`,
// `content`) or several in one call (`files`), since every call is a node
// process of its own and a thread writing a plan's eight files should not pay
// for eight. Confinement rules in lib/confine.mjs. A call checks every file it
// names before it writes any, so a refused file leaves the project as it was.
// Each write is atomic (a temporary file created with O_CREAT|O_EXCL, which
// never follows a link, then renamed over the target, which replaces a name
// and never writes through one).
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { projectPath, readParams, respond } from '@rye/runtime';
import {
  FsError,
  MAX_WRITE_BYTES,
  checkWritable,
  isInside,
  parseRelPath,
  projectRoot,
  reportFailure,
  resolveForRead,
} from './lib/confine.mjs';

export const __version__ = '1.1.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'rye/file-system';
// What its sandbox may reach (docs/sandbox.md).
export const __permissions__ = { read: ['.', '.ai/plans/**'], write: ['.', '.ai/plans/**'] };
// The metadata below is read as literals, never evaluated: no names, spreads
// or concatenation in it.
export const __tool_description__ =
  'Write UTF-8 text files inside the project folder (never into .ai/ except .ai/plans/, never through a symbolic link): one with path and content, or up to 64 in one call with files: [{path, content}] (96 KiB of content in all), every file checked before any is written';
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'project-relative file path, e.g. task-manager/server/index.js' },
    content: { type: 'string', description: 'the whole file text (at most 96 KiB)' },
    files: {
      type: 'array',
      minItems: 1,
      maxItems: 64,
      description: 'instead of path and content: up to 64 files written in one call, 96 KiB of content in all',
      items: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'project-relative file path' },
          content: { type: 'string', description: 'the whole file text' },
          overwrite: { type: 'boolean', description: "this file's own overwrite (default: the call's)" },
        },
        required: ['path', 'content'],
        additionalProperties: false,
      },
    },
    create_dirs: { type: 'boolean', default: true, description: 'create missing parent folders' },
    overwrite: { type: 'boolean', default: true, description: 'replace an existing file' },
  },
  // Either form, never both: a call naming path and files is refused, not
  // guessed at. (Plain required/dependencies keywords, whose refusals a model
  // can read, rather than `not`, whose refusal says only "must NOT be valid".)
  oneOf: [{ required: ['path', 'content'] }, { required: ['files'] }],
  dependencies: { path: ['content'], content: ['path'] },
  additionalProperties: false,
};

/** The most files one call writes (CONFIG_SCHEMA's files.maxItems). */
const MAX_WRITE_FILES = 64;

/** A refusal of the write to `shown`, naming it in details.path. */
const refuse = (code, shown, why) => new FsError(code, `Cannot write ${shown}: ${why}`, { path: shown });

/**
 * The files a call asks for, `[{path, content, overwrite}]`. The executor has
 * checked the schema; this repeats what the checks below rely on, for a run
 * without it.
 *
 * @throws FsError FS_PATH_INVALID, FS_TOO_LARGE
 */
function requested(params) {
  const single = params.path !== undefined || params.content !== undefined;
  if (params.files === undefined)
    return [{ path: params.path, content: params.content, overwrite: params.overwrite }];
  if (single)
    throw new FsError('FS_PATH_INVALID', 'Cannot write: give either path and content, or files, not both');
  if (!Array.isArray(params.files) || params.files.length === 0)
    throw new FsError('FS_PATH_INVALID', 'Cannot write: files must be a non-empty list of {path, content}');
  if (params.files.length > MAX_WRITE_FILES)
    throw new FsError(
      'FS_TOO_LARGE',
      `Cannot write ${params.files.length} files: one call writes at most ${MAX_WRITE_FILES}`,
      { files: params.files.length, max: MAX_WRITE_FILES },
    );
  return params.files.map((file) => ({
    path: file?.path,
    content: file?.content,
    overwrite: typeof file?.overwrite === 'boolean' ? file.overwrite : params.overwrite,
  }));
}

/**
 * Everything that can be known about one write before anything is written:
 * confinement, size, and what is at the path now.
 *
 * @throws FsError FS_PATH_INVALID, FS_PATH_PROTECTED, FS_PATH_LINK, FS_TOO_LARGE,
 *   FS_NOT_A_FILE, FS_NOT_A_FOLDER, FS_NOT_FOUND, FS_EXISTS
 */
function check(root, file, createDirs) {
  const segments = parseRelPath(file.path);
  const shown = segments.join('/');
  checkWritable(root, segments, shown);
  if (typeof file.content !== 'string')
    throw refuse('FS_PATH_INVALID', shown, 'its content is not a string');
  const bytes = Buffer.from(file.content, 'utf8');
  if (bytes.length > MAX_WRITE_BYTES)
    throw new FsError(
      'FS_TOO_LARGE',
      `Cannot write ${shown}: ${bytes.length} bytes is over the ${MAX_WRITE_BYTES}-byte cap`,
      { path: shown, bytes: bytes.length, max: MAX_WRITE_BYTES },
    );
  // checkWritable has refused links; a file where a folder must be would
  // otherwise fail mid-call, after earlier files were written.
  let walked = root;
  for (const [i, segment] of segments.entries()) {
    walked = join(walked, segment);
    const stat = lstatOrNull(walked);
    const last = i === segments.length - 1;
    const here = segments.slice(0, i + 1).join('/');
    if (stat === null) {
      if (!last && createDirs === false)
        throw refuse('FS_NOT_FOUND', shown, `its folder ${here} does not exist and create_dirs is false`);
      break;
    }
    if (!last && !stat.isDirectory()) throw refuse('FS_NOT_A_FOLDER', shown, `${here} is not a folder`);
    if (last && !stat.isFile()) throw refuse('FS_NOT_A_FILE', shown, 'it exists and is not a file');
    if (last && file.overwrite === false)
      throw refuse('FS_EXISTS', shown, 'it exists and overwrite is false');
  }
  return { segments, shown, bytes };
}

function lstatOrNull(path) {
  try {
    return lstatSync(path);
  } catch (error) {
    if (error?.code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Refuse a call that names one file twice, or a file inside another it writes:
 * each would be checked alone and pass, then collide while writing.
 *
 * @throws FsError FS_PATH_INVALID
 */
function checkDistinct(planned) {
  const files = new Set(planned.map((p) => p.shown));
  const seen = new Set();
  for (const { shown, segments } of planned) {
    if (seen.has(shown)) throw refuse('FS_PATH_INVALID', shown, 'this call names it twice');
    seen.add(shown);
    for (let i = 1; i < segments.length; i += 1) {
      const folder = segments.slice(0, i).join('/');
      if (files.has(folder))
        throw refuse('FS_PATH_INVALID', shown, `this call also writes ${folder} as a file`);
    }
  }
}

/** The atomic write of one checked file, its confinement checked again once its folders exist. */
function write(root, { segments, shown, bytes }, createDirs, overwrite) {
  const target = join(root, ...segments);
  const parent = dirname(target);
  if (createDirs !== false) mkdirSync(parent, { recursive: true });
  // The folders exist now: check again that none of them is a link and that
  // the parent really is inside the project.
  checkWritable(root, segments, shown);
  if (!isInside(root, resolveForRead(root, segments.slice(0, -1), shown)))
    throw refuse('FS_PATH_ESCAPE', shown, 'it leads outside the project folder');
  const stat = lstatOrNull(target);
  if (stat !== null && !stat.isFile()) throw refuse('FS_NOT_A_FILE', shown, 'it exists and is not a file');
  if (stat !== null && overwrite === false)
    throw refuse('FS_EXISTS', shown, 'it exists and overwrite is false');
  const temp = join(parent, `.rye-write-${randomBytes(8).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o644);
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return { path: shown, bytes: bytes.length, created: stat === null };
}

/**
 * Check every file, then write them in order. Only the operating system can
 * still fail a write after the checks (a full disk, a concurrent change): the
 * refusal then lists in details.written the files already written.
 */
function writeAll(root, params) {
  const files = requested(params);
  const planned = files.map((file) => check(root, file, params.create_dirs));
  checkDistinct(planned);
  const total = planned.reduce((sum, p) => sum + p.bytes.length, 0);
  if (total > MAX_WRITE_BYTES)
    throw new FsError(
      'FS_TOO_LARGE',
      `Cannot write ${files.length} files: ${total} bytes in all is over the ${MAX_WRITE_BYTES}-byte cap of one call`,
      { bytes: total, max: MAX_WRITE_BYTES },
    );
  const written = [];
  for (const [i, plan] of planned.entries()) {
    try {
      written.push(write(root, plan, params.create_dirs, files[i].overwrite));
    } catch (error) {
      if (written.length === 0) throw error;
      const failure =
        error instanceof FsError
          ? error
          : new FsError('FS_IO_FAILED', `Cannot write ${plan.shown}: ${error?.message ?? error}`, {
              cause: error?.code ?? null,
            });
      failure.details = { ...failure.details, written: written.map((w) => w.path) };
      throw failure;
    }
  }
  return written;
}

try {
  const root = projectRoot(projectPath());
  const params = readParams();
  const written = writeAll(root, params);
  if (params.files === undefined) respond({ success: true, ...written[0] });
  else respond({ success: true, files: written, bytes: written.reduce((sum, w) => sum + w.bytes, 0) });
} catch (error) {
  reportFailure(error, respond);
}

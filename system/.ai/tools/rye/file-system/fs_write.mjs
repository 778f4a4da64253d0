// Write one text file inside the project folder (issue 17). Confinement rules
// in lib/confine.mjs; the write is atomic (a temporary file created with
// O_CREAT|O_EXCL, which never follows a link, then renamed over the target, which
// replaces a name and never writes through one).
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

export const __version__ = '1.0.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'rye/file-system';
export const __tool_description__ =
  'Write a UTF-8 text file inside the project folder (never into .ai/ except .ai/plans/, never through a symbolic link)';
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'project-relative file path, e.g. task-manager/server/index.js' },
    content: { type: 'string', description: 'the whole file text (at most 96 KiB)' },
    create_dirs: { type: 'boolean', default: true, description: 'create missing parent folders' },
    overwrite: { type: 'boolean', default: true, description: 'replace an existing file' },
  },
  required: ['path', 'content'],
  additionalProperties: false,
};

function write(root, params) {
  const segments = parseRelPath(params.path);
  const shown = segments.join('/');
  checkWritable(root, segments, shown);
  const bytes = Buffer.from(params.content, 'utf8');
  if (bytes.length > MAX_WRITE_BYTES)
    throw new FsError('FS_TOO_LARGE', `Cannot write ${shown}: ${bytes.length} bytes is over the ${MAX_WRITE_BYTES}-byte cap`, {
      path: shown,
      bytes: bytes.length,
      max: MAX_WRITE_BYTES,
    });
  const target = join(root, ...segments);
  const parent = dirname(target);
  if (params.create_dirs !== false) mkdirSync(parent, { recursive: true });
  // The folders exist now: check again that none of them is a link and that
  // the parent really is inside the project.
  checkWritable(root, segments, shown);
  if (!isInside(root, resolveForRead(root, segments.slice(0, -1), shown)))
    throw new FsError('FS_PATH_ESCAPE', `Cannot write ${shown}: it leads outside the project folder`, { path: shown });
  let existed = false;
  try {
    const stat = lstatSync(target);
    existed = true;
    if (!stat.isFile())
      throw new FsError('FS_NOT_A_FILE', `Cannot write ${shown}: it exists and is not a file`, { path: shown });
    if (params.overwrite === false)
      throw new FsError('FS_EXISTS', `Cannot write ${shown}: it exists and overwrite is false`, { path: shown });
  } catch (error) {
    if (error instanceof FsError) throw error;
    if (error?.code !== 'ENOENT') throw error;
  }
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
  return { path: shown, bytes: bytes.length, created: !existed };
}

try {
  const root = projectRoot(projectPath());
  respond({ success: true, ...write(root, readParams()) });
} catch (error) {
  reportFailure(error, respond);
}

// Read one UTF-8 text file inside the project folder (issue 17): the path
// must resolve, links followed, inside the project's real path (lib/confine.mjs).
import { closeSync, fstatSync, openSync, readSync, constants } from 'node:fs';
import { projectPath, readParams, respond } from '@rye/runtime';
import { FsError, MAX_FILE_BYTES, parseRelPath, projectRoot, reportFailure, resolveForRead } from './lib/confine.mjs';

export const __version__ = '1.0.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'rye/file-system';
// What its sandbox may reach (docs/sandbox.md).
export const __permissions__ = { read: ['.', '.ai/plans/**'] };
export const __tool_description__ = 'Read a UTF-8 text file inside the project folder (at most 1 MiB)';
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'project-relative file path, e.g. .ai/plans/task-manager/phase_1/plan_db_schema.md' },
  },
  required: ['path'],
  additionalProperties: false,
};

function read(root, params) {
  const segments = parseRelPath(params.path);
  const shown = segments.join('/') || '.';
  const real = resolveForRead(root, segments, shown);
  // O_NOFOLLOW on the resolved path: a link swapped in after the check is refused.
  const fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile())
      throw new FsError('FS_NOT_A_FILE', `Cannot read ${shown}: it is not a file`, { path: shown });
    if (stat.size > MAX_FILE_BYTES)
      throw new FsError('FS_TOO_LARGE', `Cannot read ${shown}: ${stat.size} bytes is over the ${MAX_FILE_BYTES}-byte cap`, {
        path: shown,
        bytes: stat.size,
        max: MAX_FILE_BYTES,
      });
    const buffer = Buffer.alloc(stat.size);
    let offset = 0;
    while (offset < buffer.length) {
      const n = readSync(fd, buffer, offset, buffer.length - offset, offset);
      if (n === 0) break;
      offset += n;
    }
    let content;
    try {
      content = new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, offset));
    } catch {
      throw new FsError('FS_NOT_TEXT', `Cannot read ${shown}: it is not UTF-8 text`, { path: shown });
    }
    return { path: shown, bytes: offset, content };
  } finally {
    closeSync(fd);
  }
}

try {
  const root = projectRoot(projectPath());
  respond({ success: true, ...read(root, readParams()) });
} catch (error) {
  reportFailure(error, respond);
}

// List a folder inside the project (issue 17): the folder must resolve inside
// the project's real path; links are listed as links and never descended, so a
// listing never leaves the project; `.git` and `node_modules` are listed but
// not descended.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectPath, readParams, respond } from '@rye/runtime';
import { FsError, parseRelPath, projectRoot, reportFailure, resolveForRead } from './lib/confine.mjs';

export const __version__ = '1.0.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'rye/file-system';
// What its sandbox may reach (docs/sandbox.md).
export const __permissions__ = { read: ['.', '.ai/plans/**'] };
export const __tool_description__ = 'List the files and folders of a folder inside the project folder';
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', default: '.', description: 'project-relative folder path' },
    recursive: { type: 'boolean', default: false },
    max_entries: { type: 'integer', minimum: 1, maximum: 5000, default: 1000 },
  },
  additionalProperties: false,
};

const NOT_DESCENDED = new Set(['.git', 'node_modules']);

function list(root, params) {
  const segments = parseRelPath(params.path ?? '.');
  const shown = segments.join('/') || '.';
  const base = resolveForRead(root, segments, shown);
  if (!lstatSync(base).isDirectory())
    throw new FsError('FS_NOT_A_FOLDER', `Cannot list ${shown}: it is not a folder`, { path: shown });
  const max = params.max_entries ?? 1000;
  const entries = [];
  let truncated = false;
  const walk = (dir, prefix) => {
    const names = readdirSync(dir).sort();
    for (const name of names) {
      if (entries.length >= max) {
        truncated = true;
        return;
      }
      const stat = lstatSync(join(dir, name));
      const rel = prefix === '' ? name : `${prefix}/${name}`;
      const type = stat.isSymbolicLink() ? 'link' : stat.isDirectory() ? 'folder' : stat.isFile() ? 'file' : 'other';
      entries.push(type === 'file' ? { path: rel, type, bytes: stat.size } : { path: rel, type });
      if (type === 'folder' && params.recursive === true && !NOT_DESCENDED.has(name))
        walk(join(dir, name), rel);
    }
  };
  walk(base, '');
  return { path: shown, entries, truncated };
}

try {
  const root = projectRoot(projectPath());
  respond({ success: true, ...list(root, readParams()) });
} catch (error) {
  reportFailure(error, respond);
}

/**
 * `rye init`: make a folder a rye project — `.ai/` with its `directives/`,
 * `tools/` and `knowledge/` folders and a README saying what to commit — and
 * give the user a signing key when they have none. Idempotent: what exists is
 * kept as it is, and a second run changes nothing. It never replaces a file
 * and never follows a link; every path is checked before anything is written.
 */
import type { Stats } from 'node:fs';
import { lstat, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { RyeError, isRyeError } from '../errors/index.js';
import { PUBLIC_KEY_FILE, generateKeyFiles, readPublicKeyFile } from '../integrity/index.js';
import { pathExists, unreadable, writeFileAtomic } from '../platform/index.js';
import { ITEM_FOLDERS } from './item-type.js';
import { keyDir, type Spaces } from './spaces.js';

/** The folders `rye init` makes, project-relative, parents first. */
export const INIT_FOLDERS: readonly string[] = [
  '.ai',
  ...Object.values(ITEM_FOLDERS).map((folder) => `.ai/${folder}`),
];

/** The note `rye init` writes to `.ai/README.md` (and prints, in short). */
export const PROJECT_README = `# .ai/ — this project's rye items

Made by \`rye init\`. Agents run what is here only after its Ed25519
signature verifies against a key you trust.

## Commit

- \`directives/\`, \`tools/\`, \`knowledge/\`: signed items (\`rye sign <type> <item_id>\`)
- \`lockfiles/\`: pinned chains (\`rye lock update <tool_id>\`)
- \`bundles/\`, \`plans/\`: signed bundle manifests and their plans (\`rye bundle create\`)
- \`trusted_keys/\`: keys this project proposes; each clone approves them
  (\`rye trust approve\`) before they count

## Never commit

- private keys: yours is in your user space (\`~/.ai/keys/\`), never in a project
- \`threads/\`: the runtime state of agent threads
- a project \`.env\` that holds secrets

Editing a signed file breaks its signature: review the change, \`rye sign\` it
again, and \`rye lock update\` the tools whose lockfiles pin it.
`;

/** What `rye init` did. */
export interface InitResult {
  /** The project folder (absolute). */
  readonly project: string;
  /** Project-relative paths made by this run (folders end with `/`). */
  readonly created: readonly string[];
  /** Project-relative paths that were there already and were kept. */
  readonly kept: readonly string[];
  readonly key:
    | {
        readonly status: 'generated' | 'existing';
        readonly fingerprint: string;
        readonly path: string;
      }
    | { readonly status: 'skipped' };
}

/**
 * Initialize `spaces.project` (created when missing) as a rye project.
 * `options.key` false skips the key.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT (the folder is the user space),
 *   PROJECT_INIT_CONFLICT (a file or link where a folder or the README goes),
 *   KEY_INVALID / KEY_EXISTS (a damaged or half key pair: nothing is written),
 *   FILE_UNREADABLE, FILE_WRITE_FAILED
 */
export async function initProject(
  spaces: Spaces,
  options: { readonly key?: boolean } = {},
): Promise<InitResult> {
  const project = resolve(spaces.project);
  if (project === resolve(spaces.user)) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot init ${project}: it is your user space (its .ai/ holds your keys and trust); run rye init in a project folder`,
      { project },
    );
  }
  // Every check first: a conflict leaves the folder as it was.
  const projectInfo = await info(project);
  if (projectInfo !== null && !realFolder(projectInfo)) throw conflict(project, project);
  const folders = new Map<string, Stats | null>();
  for (const rel of INIT_FOLDERS) {
    const stat = projectInfo === null ? null : await info(join(project, rel));
    if (stat !== null && !realFolder(stat)) throw conflict(project, rel);
    folders.set(rel, stat);
  }
  const readme = '.ai/README.md';
  const readmeInfo = projectInfo === null ? null : await info(join(project, readme));
  if (readmeInfo !== null && !readmeInfo.isFile()) throw conflict(project, readme, 'file');
  const wantKey = options.key !== false;
  const existingKey = wantKey ? await readExistingKey(keyDir(spaces)) : null;

  const created: string[] = [];
  const kept: string[] = [];
  try {
    await mkdir(project, { recursive: true });
    for (const [rel, stat] of folders) {
      if (stat === null) {
        await mkdir(join(project, rel));
        created.push(`${rel}/`);
      } else kept.push(`${rel}/`);
    }
  } catch (error) {
    throw new RyeError(
      'FILE_WRITE_FAILED',
      `Cannot init ${project}: ${(error as Error).message}`,
      { project },
      { cause: error },
    );
  }
  if (readmeInfo === null) {
    await writeFileAtomic(join(project, readme), PROJECT_README);
    created.push(readme);
  } else kept.push(readme);

  if (!wantKey) return { project, created, kept, key: { status: 'skipped' } };
  if (existingKey !== null) return { project, created, kept, key: existingKey };
  const files = await generateKeyFiles(keyDir(spaces));
  return {
    project,
    created,
    kept,
    key: { status: 'generated', fingerprint: files.fingerprint, path: files.privateKeyPath },
  };
}

/** The user's key if they have one; null when there is none to read. */
async function readExistingKey(
  dir: string,
): Promise<{ status: 'existing'; fingerprint: string; path: string } | null> {
  try {
    const key = await readPublicKeyFile(dir);
    return { status: 'existing', fingerprint: key.fingerprint, path: join(dir, 'private_key.pem') };
  } catch (error) {
    if (!isRyeError(error, 'KEY_NOT_FOUND')) throw error;
  }
  // A public key without its private half: generating would refuse half-way.
  if (await pathExists(join(dir, PUBLIC_KEY_FILE))) {
    throw new RyeError(
      'KEY_EXISTS',
      `Cannot make a key pair: ${join(dir, PUBLIC_KEY_FILE)} exists without its private key; move it away or run \`rye keys generate --force\``,
      { path: join(dir, PUBLIC_KEY_FILE) },
    );
  }
  return null;
}

async function info(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw unreadable(path, error);
  }
}

function realFolder(stat: Stats): boolean {
  return stat.isDirectory() && !stat.isSymbolicLink();
}

function conflict(project: string, rel: string, want: 'folder' | 'file' = 'folder'): RyeError {
  const path = rel === project ? project : join(project, rel);
  return new RyeError(
    'PROJECT_INIT_CONFLICT',
    `Cannot init ${project}: ${path} is there and is not a ${want} (a link or something else); rye init follows no link and replaces nothing, so nothing was changed`,
    { project, path },
  );
}

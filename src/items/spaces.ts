import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { RyeError } from '../errors/index.js';
import { packageRoot } from '../platform/index.js';

/** Resolution order: project → user → system; the first hit wins. */
export const SPACE_NAMES = ['project', 'user', 'system'] as const;
export type SpaceName = (typeof SPACE_NAMES)[number];

/** Base folders of the three spaces; each holds its items under `<base>/.ai/`. */
export interface Spaces {
  readonly project: string;
  readonly user: string;
  readonly system: string;
}

export interface SpacesOptions {
  /** Project folder (`--project`); defaults to the working directory. */
  readonly project?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

/**
 * The three spaces: project (`--project`, default cwd), user (`RYE_USER_SPACE`,
 * default the home folder), system (`RYE_SYSTEM_SPACE`, default the package's
 * own signed standard library, `dist/system`).
 */
export function resolveSpaces(options: SpacesOptions = {}): Spaces {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const user = env['RYE_USER_SPACE'];
  const system = env['RYE_SYSTEM_SPACE'];
  return {
    project: resolve(cwd, options.project ?? '.'),
    user: resolve(cwd, user !== undefined && user !== '' ? user : homedir()),
    system: resolve(
      cwd,
      system !== undefined && system !== '' ? system : join(packageRoot(), 'dist', 'system'),
    ),
  };
}

/** `<base>/.ai` of a space. */
export function aiDir(spaces: Spaces, space: SpaceName): string {
  return join(spaces[space], '.ai');
}

/** `<base>/.ai/trusted_keys` of each space, in precedence order. */
export function trustStores(spaces: Spaces): { space: SpaceName; dir: string }[] {
  return SPACE_NAMES.map((space) => ({ space, dir: join(aiDir(spaces, space), 'trusted_keys') }));
}

/** The user's key folder, `<user>/.ai/keys`. */
export function keyDir(spaces: Spaces): string {
  return join(aiDir(spaces, 'user'), 'keys');
}

/** @throws RyeError SPACE_INVALID */
export function parseSpaceName(
  value: string,
  allowed: readonly SpaceName[] = SPACE_NAMES,
): SpaceName {
  if ((allowed as readonly string[]).includes(value)) return value as SpaceName;
  throw new RyeError(
    'SPACE_INVALID',
    `Cannot use space "${value}": expected one of ${allowed.join(', ')}`,
    {
      value,
    },
  );
}

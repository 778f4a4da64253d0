/**
 * What the host offers a sandbox: the bwrap program, and the system folders
 * and `/etc` files a sandbox sees read-only (an allow-list, CONTAINMENT.md
 * §1.5). Read once per process.
 */
import { existsSync, lstatSync, readlinkSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { RyeError } from '../../errors/index.js';
import type { SandboxMount } from './argv.js';

/** System folders, each bound read-only (or re-made as the symlink it is on a merged-/usr host). */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * The `/etc` a sandbox sees: the dynamic loader, TLS roots, name resolution,
 * users and groups (for `getpwuid`), the time zone, Debian's alternatives.
 * Nothing else: no gitconfig, no npmrc, no pip.conf, no profile.
 */
const ETC_FILES = [
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'ssl',
  'ca-certificates',
  'ca-certificates.conf',
  'pki',
  'hosts',
  'host.conf',
  'resolv.conf',
  'nsswitch.conf',
  'gai.conf',
  'services',
  'protocols',
  'passwd',
  'group',
  'localtime',
  'timezone',
  'alternatives',
];

let systemMounts: readonly SandboxMount[] | undefined;

/** The read-only system view, the same for every sandbox of this process. */
export function hostSystemMounts(): readonly SandboxMount[] {
  if (systemMounts !== undefined) return systemMounts;
  const mounts: SandboxMount[] = [];
  for (const dir of SYSTEM_DIRS) {
    let stat;
    try {
      stat = lstatSync(dir);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink())
      mounts.push({ kind: 'symlink', source: readlinkSync(dir), target: dir });
    else if (stat.isDirectory()) mounts.push({ kind: 'ro', source: dir, target: dir });
  }
  for (const name of ETC_FILES) {
    const path = join('/etc', name);
    // existsSync follows links: a dangling resolv.conf link is left out, not a failed bind.
    if (existsSync(path)) mounts.push({ kind: 'ro', source: path, target: path });
  }
  systemMounts = mounts;
  return mounts;
}

const BWRAP_CANDIDATES = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'];

/**
 * The absolute path of bwrap: `RYE_BWRAP` from the operator's own environment
 * (never a project file), else the usual install places, else an absolute
 * PATH folder.
 *
 * @throws RyeError SANDBOX_UNAVAILABLE when there is none.
 */
export function findBwrap(env: Readonly<Record<string, string | undefined>>): string {
  const chosen = env['RYE_BWRAP'];
  if (chosen !== undefined && chosen !== '') {
    if (!isAbsolute(chosen) || !isExecutableFile(chosen))
      throw unavailable(
        `RYE_BWRAP=${chosen} is not an absolute path to an executable file`,
        'ENOENT',
      );
    return chosen;
  }
  const onPath = (env['PATH'] ?? '')
    .split(':')
    .filter((dir) => isAbsolute(dir))
    .map((dir) => join(dir, 'bwrap'));
  for (const candidate of [...BWRAP_CANDIDATES, ...onPath])
    if (isExecutableFile(candidate)) return candidate;
  throw unavailable('bubblewrap (bwrap) is not installed', 'ENOENT');
}

function isExecutableFile(path: string): boolean {
  try {
    const stat = statSync(path);
    return stat.isFile() && (stat.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** SANDBOX_UNAVAILABLE with the cause and the fix. */
export function unavailable(cause: string, errno: string, detail?: string): RyeError {
  return new RyeError(
    'SANDBOX_UNAVAILABLE',
    `Cannot start the sandbox: ${cause}${detail === undefined ? '' : ` (${detail})`}; nothing ran. Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04+ also kernel.apparmor_restrict_unprivileged_userns=0), or, as the operator, run with --no-sandbox`,
    { errno, cause, ...(detail === undefined ? {} : { detail }) },
  );
}

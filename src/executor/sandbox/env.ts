/**
 * A sandbox's environment, built from nothing (CONTAINMENT.md §1.6). Pure.
 */
import { isAbsolute, sep } from 'node:path';
import { isSecretEnvName } from '../../items/index.js';

export interface SandboxEnvInput {
  /** The run's environment as the executor resolved it (the caller's, the chain's, .env, anchor paths). */
  readonly resolved: Readonly<Record<string, string>>;
  /** Names rye set from signed configuration: the chain's env maps, the interpreter, anchor paths, .env. */
  readonly signedNames: readonly string[];
  /** The effective `env:` permission: names taken from the caller's environment. */
  readonly permitted: readonly string[];
  /** The caller's own environment (where permitted names and LANG/TZ come from). */
  readonly caller: Readonly<Record<string, string | undefined>>;
  /** Folders a sandbox can see, for PATH (entries outside them are dropped). */
  readonly visible: readonly string[];
  /** Folder of the program run inside, first on PATH. */
  readonly programDir: string;
  readonly home: string;
  /** rye's own variables for the runtime libraries (manifest, roots, channel…). */
  readonly rye: Readonly<Record<string, string>>;
}

/** Passed from the caller when set: locale and time zone, nothing that steers a program. */
const AMBIENT = ['LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TERM'];
const FALLBACK_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

/**
 * The variables a tool sees: `PATH` (absolute folders the sandbox can see,
 * the program's own first), `HOME` and `TMPDIR` inside the sandbox, the
 * ambient locale and time zone, the names signed configuration set, the
 * permitted names from the caller, and rye's own run variables. A secret
 * (provider keys, capability and MCP tokens, registry credentials) never
 * passes, whoever declared it. Pure.
 */
export function sandboxEnv(input: SandboxEnvInput): Record<string, string> {
  const env = Object.create(null) as Record<string, string>;
  for (const name of AMBIENT) {
    const value = input.caller[name];
    if (value !== undefined) env[name] = value;
  }
  for (const name of input.permitted) {
    const value = input.caller[name];
    if (value !== undefined) env[name] = value;
  }
  for (const name of input.signedNames) {
    const value = input.resolved[name];
    if (value !== undefined) env[name] = value;
  }
  const seen = (dir: string): boolean =>
    input.visible.some((v) => dir === v || dir.startsWith(v.endsWith(sep) ? v : v + sep));
  const path = [input.programDir, ...(input.resolved['PATH'] ?? '').split(':'), ...FALLBACK_PATH]
    .filter((dir) => isAbsolute(dir) && seen(dir))
    .filter((dir, i, all) => all.indexOf(dir) === i);
  env['PATH'] = path.join(':');
  env['HOME'] = input.home;
  env['TMPDIR'] = '/tmp';
  Object.assign(env, input.rye);
  return withoutSecrets(env);
}

/**
 * `env` without the names no tool process ever gets (provider keys,
 * capability and MCP tokens, registry credentials), in place. With the
 * sandbox off too: running as the user is the operator's choice, handing a
 * tool rye's secrets is not.
 */
export function withoutSecrets(env: Record<string, string>): Record<string, string> {
  for (const name of Object.keys(env)) if (isSecretEnvName(name)) delete env[name];
  return env;
}

import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { RyeError } from '../../errors/index.js';
import type { AnchorConfig, ChainElement, TemplateVars, VerifyDepsConfig } from '../types.js';

/** Answers "does this path exist?"; injected so the anchor decision stays pure. */
export type PathProbe = (path: string) => boolean;

/** The default {@link PathProbe}: a synchronous file-system check. */
export const pathExistsOnDisk: PathProbe = (path) => existsSync(path);

/** Values of the spaces and parameters that are not read from the chain. */
export interface AnchorContextInput {
  readonly projectPath: string;
  readonly userSpace: string;
  readonly systemSpace: string;
  readonly paramsJson: string;
}

/**
 * The runtime element whose `anchor:` section governs the chain: the first one
 * from the tool side that declares one (a declared `enabled: false` counts, so a
 * nearer runtime can switch a farther one's anchor off). The tool entry point
 * itself (index 0) is never consulted: anchor and verify_deps are runtime-level
 * policy (seed 000) and a tool must not be able to switch off its runtime's
 * dependency verification.
 */
export function findAnchorElement(chain: readonly ChainElement[]): ChainElement | null {
  return chain.slice(1).find((element) => element.anchor !== null) ?? null;
}

/** The governing `anchor:` config (see {@link findAnchorElement}), or null. */
export function findAnchorConfig(chain: readonly ChainElement[]): AnchorConfig | null {
  return findAnchorElement(chain)?.anchor ?? null;
}

/** The governing `verify_deps:` config: first runtime from the tool side declaring one, or null. */
export function findVerifyDepsConfig(chain: readonly ChainElement[]): VerifyDepsConfig | null {
  return chain.slice(1).find((element) => element.verifyDeps !== null)?.verifyDeps ?? null;
}

/**
 * The seed 000 template variables for a chain. `anchor_path` defaults to
 * `tool_dir` (override it with {@link resolveAnchorPath} once the anchor
 * applies); `runtime_lib` is the governing runtime YAML's folder joined with
 * its `lib`, or '' when it declares none. Pure.
 */
export function anchorContext(
  chain: readonly ChainElement[],
  input: AnchorContextInput,
): TemplateVars {
  const tool = chain[0];
  if (tool === undefined)
    throw new RyeError('INTERNAL_ERROR', 'Cannot compute anchor variables: the chain is empty');
  const toolDir = dirname(tool.path);
  const declaring = findAnchorElement(chain);
  const lib = declaring?.anchor?.lib ?? null;
  return {
    tool_path: tool.path,
    tool_dir: toolDir,
    tool_parent: dirname(toolDir),
    anchor_path: toolDir,
    runtime_lib: declaring !== null && lib !== null ? join(dirname(declaring.path), lib) : '',
    project_path: input.projectPath,
    user_space: input.userSpace,
    system_space: input.systemSpace,
    params_json: input.paramsJson,
  };
}

/**
 * Whether anchor setup activates: `never` or not enabled → false; `always` →
 * true; `auto` → any of `markers_any` exists directly in `toolDir`.
 */
export function anchorApplies(
  config: AnchorConfig,
  toolDir: string,
  exists: PathProbe = pathExistsOnDisk,
): boolean {
  if (!config.enabled || config.mode === 'never') return false;
  if (config.mode === 'always') return true;
  return config.markersAny.some((marker) => exists(join(toolDir, marker)));
}

/** The anchor root for `root` (tool_dir, tool_parent or project_path). Pure. */
export function resolveAnchorPath(config: AnchorConfig, vars: TemplateVars): string {
  return vars[config.root] ?? vars.tool_dir;
}

/**
 * A new environment with the anchor's `env_paths` applied: for each variable,
 * the rendered `prepend` entries (first listed ends up first), then the existing
 * parts (split on `path.delimiter`), then the `append` entries; duplicates keep
 * their first occurrence, empty parts are dropped. Only `env` is read, never
 * `process.env` (the caller passes the resolved environment). Pure.
 */
export function applyAnchorEnv(
  config: AnchorConfig,
  env: Readonly<Record<string, string>>,
  vars: TemplateVars,
): Record<string, string> {
  const out: Record<string, string> = { ...env };
  for (const [name, spec] of Object.entries(config.envPaths)) {
    const existing = Object.hasOwn(env, name) ? (env[name] ?? '') : '';
    const parts = [
      ...spec.prepend.map((t) => renderPath(t, vars)),
      ...existing.split(delimiter),
      ...spec.append.map((t) => renderPath(t, vars)),
    ];
    const kept = [...new Set(parts.filter((part) => part !== ''))];
    out[name] = kept.join(delimiter);
  }
  return out;
}

/** The rendered anchor `cwd`, or null when the anchor leaves the working directory alone. */
export function anchorCwd(config: AnchorConfig, vars: TemplateVars): string | null {
  if (config.cwd === null) return null;
  const cwd = renderPath(config.cwd, vars);
  return cwd === '' ? null : cwd;
}

/**
 * Single-pass `{name}` replacement for known variables; unknown names stay as
 * written. A template that uses a variable whose value is empty renders to ''
 * so that `{runtime_lib}/x` without a lib never becomes the root-relative `/x`.
 */
function renderPath(template: string, vars: TemplateVars): string {
  let empty = false;
  const text = template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
    if (!Object.hasOwn(vars, name)) return whole;
    const value = vars[name] ?? '';
    if (value === '') empty = true;
    return value;
  });
  return empty ? '' : text;
}

/**
 * The lane rule (issue 11, "Bundles stay in their lane"): which app folders a
 * bundle may declare and which paths its manifest may list. It is an
 * allow-list of shapes, not a list of known-bad names:
 *
 * - An app folder (an `includes` entry) is a project-relative folder whose
 *   every segment is a plain name, `[A-Za-z0-9]` then `[A-Za-z0-9._-]*` (so no
 *   `.ai`, `.env`, `.git`, `.venv`, `__pycache__`, `-x`, `@x` or `~x`), and
 *   none of the third-party or interpreter trees `node_modules`, `venv`,
 *   `site-packages`, `dist-packages` (any letter case).
 * - A listed path lies strictly *below* one of the bundle's folders: its own
 *   item folders `.ai/{directives,tools,knowledge}/<id>/`, `.ai/plans/<name>/`,
 *   `.ai/lockfiles/<id>/`, or an app folder. So a file at the project root
 *   (`.env`, `package.json`, `tsconfig.json`) is never listed, and neither is a
 *   file of another item's or bundle's folder (`apps/todo` does not reach
 *   `.ai/tools/apps/todo2/` nor `apps/todo2/`: folders match whole segments).
 * - No segment of a listed path starts with a dot (after the fixed `.ai/`).
 * - A `node_modules` segment appears only below an app folder (a bundle made
 *   with its app dependencies, `rye bundle create --include-node-modules`),
 *   never in an item folder.
 *
 * Shared by `rye bundle create` (collect), `rye bundle verify`, the executor's
 * manifest trust and a registry pull, through `manifestScopeProblem`.
 */
import { manifestPathProblem } from './manifest-path.js';

/** The folder of a package's dependencies, only ever listed below an app folder. */
export const NODE_MODULES = 'node_modules';

// Plain names: what a segment of an app folder may be.
const PLAIN_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
// Plain names that still never make an app folder: code other tools load from there.
const RESERVED_SEGMENTS: ReadonlySet<string> = new Set([
  NODE_MODULES,
  'venv',
  'site-packages',
  'dist-packages',
]);

/**
 * Why `include` cannot be an app folder, or undefined when it can (see the
 * module comment). Pure; never throws.
 */
export function includeProblem(include: string): string | undefined {
  const why = manifestPathProblem(include);
  if (why !== undefined) return why;
  for (const segment of include.split('/')) {
    if (segment.startsWith('.')) {
      return segment === '.ai'
        ? 'it is inside .ai/ (a bundle takes only its own items from there)'
        : `segment "${segment}" starts with a dot (dot-paths are never app folders)`;
    }
    if (!PLAIN_SEGMENT.test(segment))
      return `segment "${segment}" is not a plain name ([A-Za-z0-9] then [A-Za-z0-9._-])`;
    if (RESERVED_SEGMENTS.has(segment.toLowerCase()))
      return `segment "${segment}" names a dependency or interpreter folder, never an app folder`;
  }
  return undefined;
}

/**
 * Why `path` (already a safe manifest path) is outside the lane of a bundle
 * whose item folders are `itemRoots` and whose app folders are `includes`, or
 * undefined when it is inside. Pure; never throws.
 */
export function lanePathProblem(
  path: string,
  itemRoots: readonly string[],
  includes: readonly string[],
): string | undefined {
  return laneChecker(itemRoots, includes)(path);
}

/**
 * {@link lanePathProblem} for one bundle's folders, to run over many paths
 * (a manifest's 10,000s): the folder prefixes are made once.
 */
export function laneChecker(
  itemRoots: readonly string[],
  includes: readonly string[],
): (path: string) => string | undefined {
  const itemPrefixes = itemRoots.map((root) => `${root}/`);
  const includePrefixes = includes.map((root) => `${root}/`);
  return (path) => {
    const inApp = includePrefixes.some((prefix) => path.startsWith(prefix));
    if (!inApp && !itemPrefixes.some((prefix) => path.startsWith(prefix)))
      return `it lists ${path.slice(0, 200)}, outside the bundle's folders`;
    // A segment starting with a dot: the first one (unless it is the fixed `.ai`), or one after a `/`.
    const dotted = path.startsWith('.ai/')
      ? path.includes('/.', 3)
      : path.startsWith('.') || path.includes('/.');
    if (dotted) {
      const rest = path.startsWith('.ai/') ? path.slice(3) : `/${path}`;
      const segment = rest.split('/').find((s) => s.startsWith('.'));
      return `it lists ${path.slice(0, 200)}, whose segment "${segment}" is a dot-path`;
    }
    // App folders never contain a node_modules segment themselves (includeProblem).
    if (!inApp && isNodeModulesPath(path))
      return `it lists ${path.slice(0, 200)}, a node_modules file outside the bundle's app folders`;
    return undefined;
  };
}

// Matches whenever the lower-cased path contains `node_modules`: no character
// outside ASCII lower-cases to one of its letters.
const NODE_MODULES_ANYWHERE = new RegExp(NODE_MODULES, 'i');

/** True when a listed path lies in a `node_modules` folder (below an app folder, by the rule). */
export function isNodeModulesPath(path: string): boolean {
  // Most paths have no such segment: one search, with no copy of the path, rules them out.
  if (!NODE_MODULES_ANYWHERE.test(path)) return false;
  return path.split('/').some((s) => s.toLowerCase() === NODE_MODULES);
}

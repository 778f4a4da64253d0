// The CLI bundle's view of the domains' doors (scripts/build-cli.mjs).
//
// A domain's index.ts is its only door (STYLE.md), and a command imports a few
// names through it. esbuild's code splitting follows every import record of a
// door, so one name imported through ops/index.ts put all of ops
// (zod, the search catalog, SQLite) in the chunk `rye execute` loads. Here each
// named import or re-export through a door becomes an import of the module
// that defines the name: the source keeps its doors, the bundle loads only the
// modules a command uses. Dynamic imports of a door, `export *`, names a
// door does not list explicitly and the doors taken whole (WHOLE) are left
// as written.
//
// Sound because no module under src/ does work when imported
// (checkNoImportTimeWork): skipping a door, or the modules behind it that a
// command never uses, changes nothing that runs.
import { readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { walkFiles } from './walk-files.mjs';

/**
 * Doors taken whole: a command that uses one of them needs most of what is
 * behind it, and going around them splits them into many small chunks, each
 * one more file to load (~0.3 ms each): verify-file loaded 36 files instead of
 * 15 for 8% fewer bytes; rye execute loads 27 files with these whole, 33
 * without. Never a door whose modules pull in a heavy library some of its
 * users do without (bundle: yaml; ops: zod).
 */
const WHOLE = ['errors', 'platform', 'integrity', 'items', 'lockfile', 'executor', 'capabilities'];

/** `import {…} from '…';` and `export {…} from '…';`, one statement (prettier-formatted source). */
const NAMED_FROM = /^(import|export)( type)? \{([^}]*)\} from '(\.[^']*)';$/gm;

/** The esbuild plugin, for the modules under `<root>/src`. */
export function doorsToModules(root) {
  const src = join(root, 'src') + sep;
  const doors = new Map();
  return {
    name: 'doors-to-modules',
    setup(build) {
      build.onStart(() => checkNoImportTimeWork(root, src));
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!args.path.startsWith(src)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        return { contents: throughDoors(text, args.path, src, doors), loader: 'ts' };
      });
    },
  };
}

/** The module text with its named imports through doors pointed at the defining modules. */
export function throughDoors(text, path, src, doors) {
  return text.replace(NAMED_FROM, (statement, keyword, typeOnly, list, specifier) => {
    const target = moduleOf(dirname(path), specifier);
    if (!isDoor(target, src) || WHOLE.some((d) => target === join(src, d, 'index.ts')))
      return statement;
    const byModule = new Map();
    for (const spec of splitNames(list)) {
      const name = spec.replace(/^type /, '').split(' as ')[0];
      const found = definitionOf(target, name, src, doors);
      const key = found === undefined ? specifier : importSpecifier(path, found.module);
      const local = found === undefined || found.name === name ? spec : renamed(spec, found.name);
      byModule.set(key, [...(byModule.get(key) ?? []), local]);
    }
    // A group of `type` names alone is written `import type`: under
    // verbatimModuleSyntax `import { type X }` stays as an import for effect,
    // which would load the module.
    return [...byModule]
      .map(([from, names]) => {
        const types = typeOnly !== undefined || names.every((n) => n.startsWith('type '));
        const list = types ? names.map((n) => n.replace(/^type /, '')) : names;
        return `${keyword}${types ? ' type' : ''} { ${list.join(', ')} } from '${from}';`;
      })
      .join('\n');
  });
}

/** Where a door's `name` is defined: a module that is not a door, and its own name there. */
function definitionOf(door, name, src, doors) {
  const map = exportsOf(door, doors);
  const entry = map.get(name);
  if (entry === undefined) return undefined;
  if (!isDoor(entry.module, src)) return entry;
  return definitionOf(entry.module, entry.name, src, doors);
}

/** A door's explicit re-exports: exported name → {module, name} (cached per build). */
function exportsOf(door, doors) {
  let map = doors.get(door);
  if (map !== undefined) return map;
  map = new Map();
  for (const match of readFileSync(door, 'utf8').matchAll(NAMED_FROM)) {
    const [, keyword, , list, specifier] = match;
    if (keyword !== 'export') continue;
    const module = moduleOf(dirname(door), specifier);
    for (const spec of splitNames(list)) {
      const [name, alias] = spec.replace(/^type /, '').split(' as ');
      map.set(alias ?? name, { module, name });
    }
  }
  doors.set(door, map);
  return map;
}

function splitNames(list) {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** `spec` imported as its defining module's `name`: `a as b` keeps the local name. */
function renamed(spec, name) {
  const typePrefix = spec.startsWith('type ') ? 'type ' : '';
  const local = spec
    .replace(/^type /, '')
    .split(' as ')
    .pop();
  return `${typePrefix}${name} as ${local}`;
}

function moduleOf(dir, specifier) {
  return resolve(dir, specifier).replace(/\.js$/, '.ts');
}

function isDoor(path, src) {
  return path.startsWith(src) && basename(path) === 'index.ts';
}

function importSpecifier(from, module) {
  const rel = relative(dirname(from), module).split(sep).join('/').replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/**
 * Fails when a module under `src` has a top-level statement other than a
 * declaration, an import or an export (a call, an assignment, a bare import
 * for its effect): leaving such a module out would change what runs. Source
 * is formatted by prettier, so a statement starts at column 0.
 */
function checkNoImportTimeWork(root, src) {
  const declaration =
    /^(?:export |import |const |let |var |function |function\* |async function |class |abstract class |type |interface |declare |enum |\}|\)|\]|>|\/\/|\/\*|\*|$)/;
  const problems = [];
  for (const path of walkFiles(src)) {
    if (!path.endsWith('.ts')) continue;
    let inTemplate = false;
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, at) => {
        // A line inside a multi-line template literal is text, not a statement.
        if (!inTemplate && !/^\s/.test(line) && !declaration.test(line))
          problems.push(`${relative(root, path)}:${at + 1}: ${line}`);
        if (/^import '/.test(line)) problems.push(`${relative(root, path)}:${at + 1}: ${line}`);
        if (((line.match(/`/g) ?? []).length - (line.match(/\\`/g) ?? []).length) % 2 === 1)
          inTemplate = !inTemplate;
      });
  }
  if (problems.length > 0)
    throw new Error(`modules under src/ must not do work when imported:\n${problems.join('\n')}`);
}

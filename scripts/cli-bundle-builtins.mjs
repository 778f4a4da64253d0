// The CLI bundle's Node built-ins loaded through require (scripts/build-cli.mjs).
//
// An ES module's `import { x } from 'node:fs'` makes Node build the module's
// ESM facade: it reads every export once, getters included, so `node:fs` loads
// fs/promises and `node:crypto` its webcrypto. Measured at `rye execute` start-up,
// the built-ins `rye execute tool` imports cost ~5.4 ms through import and
// ~3.7 ms through require. Every output file already has a `require` (the
// banner's createRequire), so each static import of a built-in becomes a
// require of it, at the same place in the file.
//
// Sound because a built-in's exports are its CommonJS exports (an ESM import of
// one is a view of module.exports) and no bundled module does work when
// imported (cli-bundle-doors.mjs checks the sources): a binding read before its
// line would fail loudly (a const in its temporal dead zone), never change
// what runs.
//
// Built-ins a tool run rarely calls are loaded on first call instead: a named
// import of a function from one of LAZY becomes a function that requires the
// built-in and calls it (`node:fs/promises` is ~1 ms of every `rye execute`,
// which calls it only to look an interpreter up on PATH). A call behaves the
// same; only the function's identity differs, which no code of ours compares.
import { builtinModules, createRequire } from 'node:module';

const BUILTINS = new Set(builtinModules);
const LAZY = new Set(['fs/promises', 'timers/promises']);
const require = createRequire(import.meta.url);

/** `import … from "<specifier>";` as esbuild prints it (one statement, names maybe on several lines). */
const IMPORT = /^import ([^;'"]*?) from "([^"]+)";$/gm;

/** The text with every static import of a Node built-in replaced by a require of it. */
export function builtinsThroughRequire(text, file) {
  return text.replace(IMPORT, (statement, clause, specifier) => {
    const name = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
    if (!BUILTINS.has(name)) return statement;
    if (LAZY.has(name)) return lazyRequireOf(clause.trim(), specifier, file);
    return requireOf(clause.trim(), specifier, file);
  });
}

/** Each function a `{ a, b as c }` clause names, as a function requiring the built-in on call. */
function lazyRequireOf(clause, specifier, file) {
  const match = /^\{([^}]*)\}$/.exec(clause);
  const module = require(specifier);
  const pairs = match === null ? [] : nameList(match[1], file, 'imported');
  if (pairs.length === 0 || pairs.some(([name]) => typeof module[name] !== 'function'))
    return requireOf(clause, specifier, file);
  const call = `require(${JSON.stringify(specifier)})`;
  const functions = pairs.map(
    ([name, local]) => `${local} = (...args) => ${call}.${name}(...args)`,
  );
  return `const ${functions.join(', ')};`;
}

function requireOf(clause, specifier, file) {
  const call = `require(${JSON.stringify(specifier)})`;
  let match = /^\* as ([\w$]+)$/.exec(clause);
  if (match !== null) return `const ${match[1]} = ${call};`;
  match = /^([\w$]+)$/.exec(clause);
  if (match !== null) return `const ${match[1]} = ${call};`;
  match = /^\{([^}]*)\}$/.exec(clause);
  if (match !== null) return `const { ${names(match[1], file)} } = ${call};`;
  match = /^([\w$]+), \{([^}]*)\}$/.exec(clause);
  if (match !== null)
    return `const ${match[1]} = ${call}, { ${names(match[2], file)} } = ${match[1]};`;
  throw new Error(`${file}: cannot turn \`import ${clause} from "${specifier}"\` into a require`);
}

/** `a, b as c` → `a, b: c`. */
function names(list, file) {
  return nameList(list, file, 'imported')
    .map(([name, as]) => (name === as ? name : `${name}: ${as}`))
    .join(', ');
}

/**
 * `a, b as c` (an import or export list as esbuild prints it) → [['a', 'a'],
 * ['b', 'c']]; `what` words the error for a name it cannot read.
 */
export function nameList(list, file, what) {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const m = /^([\w$]+)(?: as ([\w$]+))?$/.exec(s);
      if (m === null) throw new Error(`${file}: cannot read the ${what} name \`${s}\``);
      return [m[1], m[2] ?? m[1]];
    });
}

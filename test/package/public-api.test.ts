/**
 * The public API is a deliberate list (issue 31): every name each entry of
 * package.json's `exports` gives a user, runtime values and type-only names
 * apart, is pinned in test/package/public-api.txt. Adding, removing or
 * renaming an export fails here until that file changes with it:
 * `npx vitest run test/package/public-api.test.ts -u` rewrites it, and the
 * diff is the API change to review.
 *
 * Runtime names come from a fresh `node` importing each entry by the package's
 * name (so through `exports`, as a user's code resolves it); type-only names
 * from the TypeScript checker over the entry's built .d.ts
 * (`getExportsOfModule`, `export type *` included). The two must agree on the
 * values, so the declarations describe what the JavaScript exports. The vitest
 * global setup has built dist/.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Conditions {
  readonly types: string;
  readonly import: string;
}
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  main: string;
  types: string;
  exports: Record<string, Conditions | string>;
};

/** The library's entries, as a user imports them. */
const ENTRIES = ['.', './ops', './threads', './mcp', './registry'] as const;

function conditionsOf(entry: string): Conditions {
  const target = PACKAGE.exports[entry];
  if (typeof target !== 'object') throw new Error(`package.json exports has no ${entry}`);
  return target;
}

const specifierOf = (entry: string) =>
  entry === '.' ? PACKAGE.name : PACKAGE.name + entry.slice(1);

/** Each entry's runtime export names, sorted, from one node resolving the package by its name. */
function runtimeNames(): Record<string, string[]> {
  const script = `const out = {};
for (const [entry, specifier] of ${JSON.stringify(ENTRIES.map((e) => [e, specifierOf(e)]))})
  out[entry] = Object.keys(await import(specifier)).sort();
console.log(JSON.stringify(out));`;
  const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(res.status, res.stderr).toBe(0);
  return JSON.parse(res.stdout) as Record<string, string[]>;
}

/**
 * Each entry's export names from its .d.ts, split into values and type-only
 * names, sorted. Only the package's own declarations are read: an entry
 * re-exports nothing from a dependency, so the SDKs' types (half the time)
 * are left unresolved; a value re-exported from one would show up as a
 * type here, and the check against the runtime names would fail.
 */
function declaredNames(): Record<string, { values: string[]; types: string[] }> {
  const files = ENTRIES.map((entry) => join(ROOT, conditionsOf(entry).types));
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    noEmit: true,
    noLib: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  host.resolveModuleNameLiterals = (literals, containing, _redirect, opts) =>
    literals.map((literal) =>
      literal.text.startsWith('.')
        ? ts.resolveModuleName(literal.text, containing, opts, host)
        : { resolvedModule: undefined },
    );
  const program = ts.createProgram(files, options, host);
  const checker = program.getTypeChecker();
  const out: Record<string, { values: string[]; types: string[] }> = {};
  ENTRIES.forEach((entry, i) => {
    const source = program.getSourceFile(files[i] as string);
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`cannot read ${files[i]}`);
    const values: string[] = [];
    const types: string[] = [];
    for (const symbol of checker.getExportsOfModule(module)) {
      const target =
        symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      (target.flags & ts.SymbolFlags.Value ? values : types).push(symbol.name);
    }
    out[entry] = { values: values.sort(), types: types.sort() };
  });
  return out;
}

/** The pinned file's text: per entry its values, then its type-only names as `type X`. */
function formatApi(api: Record<string, { values: string[]; types: string[] }>): string {
  const sections = ENTRIES.map((entry) => {
    const { values, types } = api[entry] as { values: string[]; types: string[] };
    const head = `[${specifierOf(entry)}] ${values.length} values, ${types.length} types`;
    return [head, ...values, ...types.map((t) => `type ${t}`)].join('\n');
  });
  return `${sections.join('\n\n')}\n`;
}

describe('the public API', () => {
  it('package.json exports the five entries, each with types and import files that were built', () => {
    expect(Object.keys(PACKAGE.exports).sort()).toEqual([...ENTRIES, './package.json'].sort());
    for (const entry of ENTRIES) {
      const { types, import: js } = conditionsOf(entry);
      expect(Object.keys(conditionsOf(entry)), entry).toEqual(['types', 'import']);
      expect(js, entry).toMatch(/^\.\/dist\/src\/(?:[a-z]+\/)?index\.js$/);
      expect(types, entry).toBe(js.replace(/\.js$/, '.d.ts'));
      expect(existsSync(join(ROOT, js)), js).toBe(true);
      expect(existsSync(join(ROOT, types)), types).toBe(true);
    }
    expect([PACKAGE.main, PACKAGE.types]).toEqual([
      conditionsOf('.').import,
      conditionsOf('.').types,
    ]);
  });

  it('each entry exports exactly the names in public-api.txt', async () => {
    const runtime = runtimeNames();
    const declared = declaredNames();
    for (const entry of ENTRIES) expect(declared[entry]?.values, entry).toEqual(runtime[entry]);
    await expect(formatApi(declared)).toMatchFileSnapshot('public-api.txt');
  }, 60_000);
});

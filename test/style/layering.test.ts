import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * STYLE.md, "Layout": a domain's index.ts is its only door, and lower layers
 * never import higher ones. Read from the TypeScript sources (every static
 * import and export, `import type` included, and every `import('…')`).
 */
const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** Layers, lowest first; domains on one layer may import each other (through their doors). */
const LAYERS: readonly (readonly string[])[] = [
  ['errors'],
  ['platform'],
  ['integrity'],
  ['items'],
  ['lockfile', 'bundle'],
  ['executor'],
  ['threads'],
  ['registry', 'mcp', 'cli'],
];

/**
 * Doors besides `src/<domain>/index.ts`: the registry server is loaded only by
 * `rye registry serve`, so the client commands never pay for it; `threads` is
 * a layer of sub-domains, each behind its own door, so a command loads only the
 * parts it uses (`rye search` never loads the provider SDKs).
 */
const EXTRA_DOORS: readonly string[] = [
  'registry/server/index.ts',
  // The in-process system tools: a few lines that load the registry only when one runs.
  'registry/in-process.ts',
  ...[
    'admission',
    'budget',
    'capabilities',
    'catalog',
    'conversation',
    'directive',
    'hooks',
    'ids',
    'loop',
    'ops',
    'prompt',
    'providers',
    'root',
    'store',
    'thread-tools',
    'transcript',
  ].map((part) => `threads/${part}/index.ts`),
];

interface Edge {
  readonly from: string;
  readonly to: string;
  readonly line: number;
}

function layerOf(domain: string): number {
  return LAYERS.findIndex((names) => names.includes(domain));
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every relative module specifier of a file, resolved to a `src/`-relative `.ts` path. */
function importsOf(file: string): Edge[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: Edge[] = [];
  const add = (specifier: ts.Expression | undefined): void => {
    if (specifier === undefined || !ts.isStringLiteralLike(specifier)) return;
    if (!specifier.text.startsWith('.')) return;
    const target = resolve(dirname(file), specifier.text).replace(/\.js$/, '.ts');
    edges.push({
      from: rel(file),
      to: rel(target),
      line: source.getLineAndCharacterOfPosition(specifier.getStart()).line + 1,
    });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      add(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

function rel(path: string): string {
  return relative(SRC, path).split(sep).join('/');
}

/** The domain of a `src/`-relative path; `''` for `src/index.ts` (the public API, above all). */
function domainOf(path: string): string {
  return path.includes('/') ? (path.split('/')[0] ?? '') : '';
}

/** Why an import breaks the layering, or undefined when it is allowed. */
function layeringProblem(edge: Edge): string | undefined {
  const from = domainOf(edge.from);
  const to = domainOf(edge.to);
  if (to === '') return `imports the public API ${edge.to}`;
  if (from === to) return undefined;
  if (from !== '' && layerOf(from) < layerOf(to))
    return `${from} (layer ${layerOf(from)}) imports the higher ${to} (layer ${layerOf(to)})`;
  if (edge.to !== `${to}/index.ts` && !EXTRA_DOORS.includes(edge.to))
    return `imports ${edge.to} around the door ${to}/index.ts`;
  return undefined;
}

const files = walk(SRC);
const edges = files.flatMap(importsOf);

describe('layering (STYLE.md)', () => {
  it('knows the layer of every domain under src/', () => {
    const domains = new Set(files.map((f) => domainOf(rel(f))).filter((d) => d !== ''));
    for (const domain of domains) expect(layerOf(domain), domain).toBeGreaterThanOrEqual(0);
  });

  it('no module imports a higher layer, or another domain around its index.ts', () => {
    const problems = edges.flatMap((edge) => {
      const why = layeringProblem(edge);
      return why === undefined ? [] : [`src/${edge.from}:${edge.line}: ${why}`];
    });
    expect(problems).toEqual([]);
  });

  it('reads imports, re-exports, type imports and dynamic imports', () => {
    // The walk must see each form, or the rule above would pass by seeing nothing.
    const seen = (from: string, to: string) => edges.some((e) => e.from === from && e.to === to);
    expect(seen('index.ts', 'errors/index.ts')).toBe(true);
    expect(seen('cli/commands/bundle.ts', 'bundle/index.ts')).toBe(true);
    expect(edges.length).toBeGreaterThan(files.length);
  });

  it('flags an import of a higher layer and one around a door', () => {
    expect(layeringProblem({ from: 'items/x.ts', to: 'executor/index.ts', line: 1 })).toMatch(
      /items \(layer 3\) imports the higher executor \(layer 5\)/,
    );
    expect(layeringProblem({ from: 'cli/x.ts', to: 'bundle/verify.ts', line: 1 })).toMatch(
      /around the door bundle\/index.ts/,
    );
    expect(layeringProblem({ from: 'cli/x.ts', to: 'registry/server/index.ts', line: 1 })).toBe(
      undefined,
    );
    expect(layeringProblem({ from: 'lockfile/x.ts', to: 'bundle/index.ts', line: 1 })).toBe(
      undefined,
    );
  });
});

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
  ['ids'],
  ['integrity'],
  ['items'],
  ['lockfile', 'bundle'],
  ['executor'],
  ['capabilities'],
  ['catalog'],
  ['ops'],
  ['threads'],
  ['registry', 'mcp', 'cli'],
];

/**
 * The parts of `threads`, lowest first (src/threads/README.md): a part may
 * import parts on its own tier or below, never one above. The runner (loop)
 * sits below the tree that links runs, the control commands above both, the
 * thread tools above what they inspect, and `root` (the port the operations
 * call) on top.
 */
const THREAD_PARTS: readonly (readonly string[])[] = [
  ['conversation', 'directive'],
  ['transcript', 'providers', 'prompt', 'budget'],
  ['store'],
  ['outcome', 'admission'],
  ['hooks'],
  ['loop'],
  ['tree'],
  ['control'],
  ['thread-tools'],
  ['root'],
];

/**
 * Doors besides `src/<domain>/index.ts`: the registry server is loaded only by
 * `rye registry serve`, so the client commands never pay for it; `threads` is
 * a layer of parts, each behind its own door, so a command loads only the
 * parts it uses (`rye search` never loads the provider SDKs).
 */
const EXTRA_DOORS: readonly string[] = [
  'registry/server/index.ts',
  // The in-process system tools: a few lines that load the registry only when one runs.
  'registry/in-process.ts',
  ...THREAD_PARTS.flat().map((part) => `threads/${part}/index.ts`),
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

/** The part of a file under `threads/` (`''` for `threads/index.ts`, the layer's door, above all). */
function threadPartOf(path: string): string {
  const segments = path.split('/');
  return segments.length > 2 ? (segments[1] ?? '') : '';
}

function tierOf(part: string): number {
  return part === '' ? THREAD_PARTS.length : THREAD_PARTS.findIndex((t) => t.includes(part));
}

/** Why an import breaks the layering, or undefined when it is allowed. */
function layeringProblem(edge: Edge): string | undefined {
  const from = domainOf(edge.from);
  const to = domainOf(edge.to);
  if (to === '') return `imports the public API ${edge.to}`;
  if (from === to && from === 'threads') {
    const [a, b] = [threadPartOf(edge.from), threadPartOf(edge.to)];
    return tierOf(a) < tierOf(b)
      ? `threads/${a} (tier ${tierOf(a)}) imports the higher threads/${b} (tier ${tierOf(b)})`
      : undefined;
  }
  if (from === to) return undefined;
  if (from !== '' && layerOf(from) < layerOf(to))
    return `${from} (layer ${layerOf(from)}) imports the higher ${to} (layer ${layerOf(to)})`;
  if (edge.to !== `${to}/index.ts` && !EXTRA_DOORS.includes(edge.to))
    return `imports ${edge.to} around the door ${to}/index.ts`;
  return undefined;
}

/**
 * The import cycles among files (Tarjan's strongly connected components of
 * more than one file, or a file importing itself), each sorted; none are
 * allowed anywhere in src/: a cycle hides which of its files comes first.
 */
function cyclesOf(graph: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of graph) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (next.get(v) ?? []).includes(v)) cycles.push(component.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return cycles;
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

  it('no file imports itself back through others (0 cycles in src/)', () => {
    expect(cyclesOf(edges).map((cycle) => cycle.join(' ⇄ '))).toEqual([]);
  });

  it('knows the tier of every part of threads/', () => {
    const parts = new Set(
      files
        .map((f) => rel(f))
        .filter((f) => f.startsWith('threads/'))
        .map(threadPartOf),
    );
    for (const part of parts) expect(tierOf(part), part).toBeGreaterThanOrEqual(0);
  });

  it('finds a cycle of three files and one file importing itself, and no cycle in a chain', () => {
    const edge = (from: string, to: string): Edge => ({ from, to, line: 1 });
    expect(cyclesOf([edge('a', 'b'), edge('b', 'c'), edge('c', 'a'), edge('c', 'd')])).toEqual([
      ['a', 'b', 'c'],
    ]);
    expect(cyclesOf([edge('a', 'a')])).toEqual([['a']]);
    expect(cyclesOf([edge('a', 'b'), edge('b', 'c'), edge('a', 'c')])).toEqual([]);
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
      /items \(layer \d+\) imports the higher executor \(layer \d+\)/,
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
    expect(
      layeringProblem({ from: 'threads/loop/x.ts', to: 'threads/control/index.ts', line: 1 }),
    ).toMatch(/threads\/loop \(tier \d+\) imports the higher threads\/control/);
    expect(
      layeringProblem({ from: 'threads/control/x.ts', to: 'threads/loop/y.ts', line: 1 }),
    ).toBe(undefined);
  });
});

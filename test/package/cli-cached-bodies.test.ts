/**
 * scripts/cli-cached-bodies.mjs: a bundled ES module (no static import, one
 * export list at its end) becomes a function body returning its exports, or
 * the build stops where the rewrite could not carry the module over exactly.
 */
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script, plain JavaScript without declarations
import { asBody } from '../../scripts/cli-cached-bodies.mjs';

const BANNER = '// banner';
type Body = (
  require: unknown,
  metaUrl: string,
  importer: (specifier: string) => Promise<unknown>,
) => Record<string, unknown>;
const rewrite = (code: string): { body: string; exported: string[] } =>
  (asBody as (t: string, b: string, f: string) => { body: string; exported: string[] })(
    BANNER + code,
    BANNER,
    'x.js',
  );
const run = (code: string, importer = (s: string) => Promise.resolve(s)) =>
  (new Script(rewrite(code).body).runInThisContext() as Body)(
    () => 'required',
    'file:///pkg/x.js',
    importer,
  );

describe('asBody', () => {
  it('returns the exports by their exported names, and keeps every line where it was', () => {
    const code = `\nvar a = 1;\nfunction f() { return new Error('here').stack; }\nclass C {}\nexport {\n  C,\n  a as b,\n  f\n};\n`;
    const { body, exported } = rewrite(code);
    expect(exported).toEqual(['C', 'b', 'f']);
    const out = (new Script(body, { filename: 'x.body.js' }).runInThisContext() as Body)(
      null,
      '',
      () => Promise.resolve(),
    );
    expect(Object.keys(out)).toEqual(['C', 'b', 'f']);
    expect(out['b']).toBe(1);
    expect((out['f'] as () => string)()).toContain('x.body.js:3:');
  });

  it('hands import.meta.url, require and relative dynamic imports to the loader, in strict mode', async () => {
    const out = run(
      `var u = import.meta.url;\nvar r = require("node:fs");\nvar i = () => import("./chunk.js");\nvar s = function () { return this; }();\nvar hint = "use import() instead";\nexport { hint, i, r, s, u };\n`,
    );
    expect(out).toMatchObject({ u: 'file:///pkg/x.js', r: 'required', s: undefined });
    expect(out['hint']).toBe('use import() instead');
    await expect((out['i'] as () => Promise<string>)()).resolves.toBe('./chunk.js');
  });

  it('refuses what a function body cannot carry over exactly', () => {
    for (const [code, problem] of [
      ['var a = 1;\n', /no export list at its end/],
      ['import { x } from "./y.js";\nexport { x };\n', /import or export statement/],
      ['export var a = 1;\nexport { a as b };\n', /import or export statement/],
      ['var a = import.meta.dirname;\nexport { a };\n', /import\.meta other than its url/],
      ['var a = (s) => import(s);\nexport { a };\n', /dynamic import of something other/],
      ['var a = 1;\na = 2;\nexport { a };\n', /a is exported and assigned after/],
      ['var a = 1;\nfunction g() { a += 1; }\nexport { a, g };\n', /a is exported and assigned/],
      ['var a = 1;\nfunction g() { a++; }\nexport { a, g };\n', /a is exported and assigned/],
      ['function a() {}\na = null;\nexport { a };\n', /a is exported and assigned/],
      ['var __rye_import = 1;\nexport { __rye_import };\n', /already uses __rye_import/],
      ['var x = 1;\nexport { x as __ryeCodeCache };\n', /exports __ryeCodeCache/],
      ['function require() {}\nexport { require };\n', /declares its own require/],
    ] as const)
      expect(() => rewrite(code), code).toThrow(problem);
  });

  it('leaves an exported binding read, compared or shadowed in an arrow alone', () => {
    const out = run(
      'var a = 1;\nvar t = a == 1 && a === 1 && a >= 1 && ((a) => a)(2) === 2;\nexport { a, t };\n',
    );
    expect(out).toEqual({ a: 1, t: true });
  });

  it('a top-level await does not compile as a body', () => {
    const { body } = rewrite('var a = await 1;\nexport { a };\n');
    expect(() => new Script(body)).toThrow(SyntaxError);
  });
});

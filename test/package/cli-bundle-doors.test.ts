/**
 * scripts/cli-bundle-doors.mjs: in the CLI bundle, a named import through a
 * domain's door becomes an import of the module that defines the name.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a build script, plain JavaScript without declarations
import { throughDoors } from '../../scripts/cli-bundle-doors.mjs';

const root = mkdtempSync(join(tmpdir(), 'rye-doors-'));
const src = join(root, 'src') + sep;
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, text: string): string {
  const path = join(src, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

write(
  'lib/index.ts',
  `export { a, b as bee } from './a.js';\nexport type { T } from './types.js';\nexport { deep } from './sub/index.js';\n`,
);
write('lib/sub/index.ts', `export { inner as deep } from './inner.js';\n`);
const user = write('app/user.ts', '');
const rewrite = (text: string): string =>
  throughDoors(text, user, src, new Map()) as unknown as string;

describe('throughDoors()', () => {
  it('points each name at its defining module, through nested doors and aliases', () => {
    expect(rewrite(`import { a, bee as b2, deep } from '../lib/index.js';`)).toBe(
      [
        `import { a, b as b2 } from '../lib/a.js';`,
        `import { inner as deep } from '../lib/sub/inner.js';`,
      ].join('\n'),
    );
    expect(rewrite(`export { bee } from '../lib/index.js';`)).toBe(
      `export { b as bee } from '../lib/a.js';`,
    );
  });

  it('writes a group of type names alone as import type (never an import for effect)', () => {
    expect(rewrite(`import { a, type T } from '../lib/index.js';`)).toBe(
      [`import { a } from '../lib/a.js';`, `import type { T } from '../lib/types.js';`].join('\n'),
    );
  });

  it('leaves names a door does not list, other modules and dynamic imports as written', () => {
    expect(rewrite(`import { missing } from '../lib/index.js';`)).toBe(
      `import { missing } from '../lib/index.js';`,
    );
    const other = `import { x } from './x.js';\nconst m = await import('../lib/index.js');`;
    expect(rewrite(other)).toBe(other);
  });
});

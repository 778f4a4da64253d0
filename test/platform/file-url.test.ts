import fc from 'fast-check';
import { sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fileUrlOf, pathOfFileUrl } from '../../src/platform/index.js';

/** Segments from plain names and from what a file URL must escape or a path must normalise. */
const segment = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'Z', '0', '_', '.', '@', '+', '-'), minLength: 1 }),
  fc.string({
    unit: fc.constantFrom('a', '.', '%', '#', '?', ' ', '\\', '~', ':', '\n', 'é', '\u{1f600}'),
    minLength: 0,
  }),
);

describe.skipIf(sep !== '/')('file URLs of the package files without node:url', () => {
  it('fileUrlOf() and pathOfFileUrl() answer as pathToFileURL() and fileURLToPath()', () => {
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (segments) => {
        const path = `/${segments.join('/')}`;
        const url = pathToFileURL(path).href;
        expect(fileUrlOf(path)).toBe(url);
        expect(pathOfFileUrl(url)).toBe(fileURLToPath(url));
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the short way for the package paths npm makes', () => {
    for (const path of [
      '/usr/lib/node_modules/rye-ts/dist/cli/fast/execute.js',
      '/home/ada/.npm-global/lib/node_modules/@scope/rye-ts/dist/cli/main.js',
    ]) {
      expect(fileUrlOf(path)).toBe(`file://${path}`);
      expect(pathOfFileUrl(`file://${path}`)).toBe(path);
    }
    // `.` and `..` segments, `%` and the like go through node:url.
    expect(fileUrlOf('/a/../b')).toBe('file:///b');
    expect(fileUrlOf('/a/%41')).toBe('file:///a/%2541');
    expect(pathOfFileUrl('file:///a/%41')).toBe('/a/A');
  });
});

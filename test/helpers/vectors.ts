import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One expectation from a vector folder's expected.json. */
export interface VectorExpectation {
  readonly path: string;
  readonly item_type: 'directive' | 'tool' | 'knowledge';
  readonly verdict: string;
  readonly coverage?: string;
  readonly provenance?: string;
  readonly fingerprint?: string;
  readonly content_hash?: string;
  readonly embedded_hash?: string;
  readonly actual_hash?: string;
  readonly note?: string;
}

export interface VectorSuite {
  readonly name: string;
  readonly root: string;
  readonly filesDir: string;
  readonly trustDir: string;
  readonly expectations: readonly VectorExpectation[];
}

/**
 * The signature conformance vectors, kept in the repository (test/vectors/signatures,
 * frozen: `.gitattributes` keeps their bytes exact), so no checkout can run the
 * suite without them.
 */
export const VECTORS_DIR = fileURLToPath(new URL('../vectors/signatures', import.meta.url));

/**
 * The vectors folder; throws (the calling suite fails, never skips) when it is
 * missing or holds no suite.
 */
export function requireVectors(): string {
  if (!existsSync(join(VECTORS_DIR, 'README.md')))
    throw new Error(`The conformance vectors are missing: ${VECTORS_DIR}`);
  return VECTORS_DIR;
}

/** Every folder under the vectors dir that holds an expected.json (throws when there is none). */
export function loadVectorSuites(): VectorSuite[] {
  requireVectors();
  const suites: VectorSuite[] = [];
  const walk = (dir: string): void => {
    if (existsSync(join(dir, 'expected.json'))) {
      const filesDir = join(dir, 'files');
      suites.push({
        name: relative(VECTORS_DIR, dir),
        root: dir,
        filesDir,
        trustDir: join(filesDir, '.ai', 'trusted_keys'),
        expectations: JSON.parse(
          readFileSync(join(dir, 'expected.json'), 'utf8'),
        ) as VectorExpectation[],
      });
      return;
    }
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
    }
  };
  walk(VECTORS_DIR);
  if (suites.length === 0) throw new Error(`No vector suite (expected.json) under ${VECTORS_DIR}`);
  return suites;
}

/** Every file of a suite except its trust store, as paths relative to files/. */
export function vectorFiles(suite: VectorSuite): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (path === suite.trustDir) continue;
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(suite.filesDir, path).split(sep).join('/'));
    }
  };
  walk(suite.filesDir);
  return out.sort();
}

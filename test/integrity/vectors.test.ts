import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadExplicitTrust, verifyFile, verifyFileSync } from '../../src/integrity/index.js';
import { loadVectorSuites, vectorFiles } from '../helpers/vectors.js';

describe('conformance vectors (test/vectors/signatures)', () => {
  // Throws when the vectors are missing: the suite fails, it never skips.
  const suites = loadVectorSuites();

  it('finds at least the two published suites', () => {
    expect(suites.map((s) => s.name).sort()).toEqual(
      expect.arrayContaining(['ryeos-4c01bfe54', 'synthetic']),
    );
  });

  for (const suite of suites) {
    describe(suite.name, () => {
      it('has an expectation for every file in the tree', () => {
        const expected = new Set(suite.expectations.map((e) => e.path));
        const missing = vectorFiles(suite).filter((f) => !expected.has(f));
        expect(missing, 'vector files without an expectation').toEqual([]);
      });

      for (const vector of suite.expectations) {
        it(`verifyFile() gives ${vector.verdict} for ${vector.path}`, async () => {
          const trust = await loadExplicitTrust([suite.trustDir]);
          const result = await verifyFile(
            join(suite.filesDir, vector.path),
            vector.item_type,
            trust,
          );
          expect(result.verdict, result.message).toBe(vector.verdict);
          expect(result.ok).toBe(vector.verdict === 'ok');
          if (vector.coverage !== undefined) expect(result.coverage).toBe(vector.coverage);
          expect(result.provenance).toBe(vector.provenance ?? null);
          if (vector.fingerprint !== undefined) expect(result.fingerprint).toBe(vector.fingerprint);
          if (vector.content_hash !== undefined)
            expect(result.contentHash).toBe(vector.content_hash);
          if (vector.embedded_hash !== undefined)
            expect(result.contentHash).toBe(vector.embedded_hash);
          if (vector.actual_hash !== undefined) expect(result.actualHash).toBe(vector.actual_hash);
          // `rye verify-file` checks one file on its own thread: the same result, field for field.
          const path = join(suite.filesDir, vector.path);
          expect(verifyFileSync(path, vector.item_type, trust)).toEqual(result);
        });
      }
    });
  }
});

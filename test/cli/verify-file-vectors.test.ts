import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rye } from '../helpers/cli.js';
import { loadVectorSuites } from '../helpers/vectors.js';

/** The conformance verb, as a whole process, over every vector file (missing vectors fail). */
describe('rye verify-file --trust <vector keys> --json over every vector', () => {
  for (const suite of loadVectorSuites()) {
    it(`agrees with ${suite.name}/expected.json`, async () => {
      const pending = [...suite.expectations];
      const mismatches: string[] = [];
      const worker = async (): Promise<void> => {
        for (let v = pending.shift(); v !== undefined; v = pending.shift()) {
          const res = await rye([
            'verify-file',
            join(suite.filesDir, v.path),
            '--item-type',
            v.item_type,
            '--trust',
            suite.trustDir,
            '--json',
          ]);
          const doc = res.json<Record<string, unknown>>();
          const expectedExit = v.verdict === 'ok' ? 0 : 3;
          const checks: [string, unknown, unknown][] = [
            ['verdict', doc['verdict'], v.verdict],
            ['exit', res.code, expectedExit],
            ['provenance', doc['provenance'], v.provenance ?? null],
          ];
          if (v.coverage !== undefined) checks.push(['coverage', doc['coverage'], v.coverage]);
          if (v.fingerprint !== undefined)
            checks.push(['fingerprint', doc['fingerprint'], v.fingerprint]);
          if (v.content_hash !== undefined)
            checks.push(['content_hash', doc['content_hash'], v.content_hash]);
          for (const [what, got, want] of checks)
            if (got !== want)
              mismatches.push(`${v.path}: ${what} ${String(got)} ≠ ${String(want)}`);
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
      expect(mismatches).toEqual([]);
    });
  }
});

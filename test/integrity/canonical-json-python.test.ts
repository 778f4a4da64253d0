import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRyeError } from '../../src/errors/index.js';
import type { ErrorCode } from '../../src/errors/index.js';
import { canonicalJson } from '../../src/integrity/canonical-json.js';
import { parseJsonAst } from '../../src/integrity/json-ast.js';
import { readJsonSignature, writeJsonSignature } from '../../src/integrity/json-signature.js';
import { jsonDocument, jsonObjectDocument, mutate, mutation } from '../helpers/json-texts.js';

/**
 * canonicalJson() against its oracle, CPython's json module, run once over a
 * batch of documents (this file starts python3: the spawning lane).
 */

const FIELD = '_signature';
const PAYLOAD =
  'rye:signed:2026-02-11T00:00:00Z:' +
  'a'.repeat(64) +
  ':' +
  'A'.repeat(86) +
  '==:0123456789abcdef';

const canon = (text: string): string => canonicalJson(parseJsonAst(text, 'test.json'));

function codeOf(fn: () => unknown): ErrorCode | 'no error' {
  try {
    fn();
  } catch (error) {
    if (isRyeError(error)) return error.code;
    throw error;
  }
  return 'no error';
}

const hasPython = spawnSync('python3', ['--version']).status === 0;
const SKIP_NOTE = hasPython ? '' : ' [SKIPPED: python3 is not on PATH]';

const ORACLE = `
import json, sys
docs = json.loads(sys.stdin.buffer.read().decode("utf-8"))
out = []
drop = sys.argv[1] if len(sys.argv) > 1 else None
for d in docs:
    try:
        obj = json.loads(d)
        if drop is not None:
            obj.pop(drop, None)
        out.append({"ok": json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)})
    except Exception as e:
        out.append({"error": type(e).__name__ + ": " + str(e)[:200]})
sys.stdout.write(json.dumps(out))
`;

type OracleResult = { ok: string; error?: undefined } | { ok?: undefined; error: string };

/** Python's canonical text of each document, after `obj.pop(dropField)` when given. */
function pythonCanonical(docs: readonly string[], dropField?: string): OracleResult[] {
  const args = dropField === undefined ? [] : [dropField];
  const run = spawnSync('python3', ['-c', ORACLE, ...args], {
    input: JSON.stringify(docs),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`python3 oracle failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as OracleResult[];
}

type Ours = { ok: string } | { code: ErrorCode };

function ours(doc: string): Ours {
  try {
    return { ok: canon(doc) };
  } catch (error) {
    if (isRyeError(error)) return { code: error.code };
    throw error;
  }
}

interface Disagreement {
  readonly doc: string;
  readonly python: OracleResult | undefined;
  readonly ours: Ours;
}

/** Run the oracle over `docs` and list every document where `agree` says no. */
function disagreementsWithPython(
  docs: readonly string[],
  agree: (python: OracleResult | undefined, ts: Ours) => boolean,
): Disagreement[] {
  const expected = pythonCanonical(docs);
  return docs.flatMap((doc, i) => {
    const python = expected[i];
    const ts = ours(doc);
    return agree(python, ts) ? [] : [{ doc, python, ours: ts }];
  });
}

describe(`canonicalJson() against CPython's json.dumps${SKIP_NOTE}`, () => {
  it.skipIf(!hasPython)('matches Python byte for byte over generated documents', () => {
    const seed = Date.now() % 2 ** 31;
    const docs = fc.sample(jsonDocument, { numRuns: 1500, seed });
    const found = disagreementsWithPython(
      docs,
      (py, ts) => py?.ok !== undefined && 'ok' in ts && ts.ok === py.ok,
    );
    expect(found, `fast-check seed ${seed}`).toEqual([]);
  });

  it.skipIf(!hasPython)('accepts and refuses the same mutated texts as Python', () => {
    const seed = Date.now() % 2 ** 31;
    const samples = fc.sample(fc.tuple(jsonDocument, mutation), { numRuns: 1500, seed });
    const found = disagreementsWithPython(
      samples.map(([doc, m]) => mutate(doc, m)),
      (py, ts) => {
        // A duplicate key before the syntax error is refused first, as unsafe.
        if (py?.ok === undefined) return 'code' in ts;
        // Python keeps the last of duplicate keys; we refuse them on purpose.
        return 'ok' in ts ? ts.ok === py.ok : ts.code === 'PARSE_UNSAFE_CONTENT';
      },
    );
    expect(found, `fast-check seed ${seed}`).toEqual([]);
  });

  it.skipIf(!hasPython)('hashes files signed here exactly as Python hashes them', () => {
    const docs = fc
      .sample(jsonObjectDocument, { numRuns: 500 })
      .filter((d) => codeOf(() => readJsonSignature(d, FIELD, 't')) === 'no error');
    const signed = docs.map((d) => writeJsonSignature(d, FIELD, PAYLOAD, 't'));
    const expected = pythonCanonical(signed, FIELD);
    const mismatches = docs.flatMap((doc, i) => {
      const hashedText = readJsonSignature(doc, FIELD, 't').hashedText;
      return expected[i]?.ok === hashedText
        ? []
        : [{ doc, signed: signed[i], python: expected[i] }];
    });
    expect(mismatches).toEqual([]);
  });
});

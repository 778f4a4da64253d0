import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signText, verifyText } from '../../src/integrity/index.js';
import { problemWith } from '../../src/items/index.js';
import {
  parseLockfile,
  relativePathProblem,
  serializeLockfile,
  versionProblem,
} from '../../src/lockfile/index.js';
import type { LockedElement, Lockfile, VerifiedDeps } from '../../src/lockfile/index.js';
import { makeSigner } from '../helpers/keys.js';

const H1 = '1'.repeat(64);
const H2 = '2'.repeat(64);

const V1: Lockfile = {
  lockfileVersion: 1,
  generatedAt: '2026-02-11T00:00:00Z',
  root: { toolId: 'web/scraper', version: '1.0.0', integrity: H1 },
  resolvedChain: [
    {
      itemId: 'web/scraper',
      space: 'project',
      toolType: 'python',
      executorId: 'rt/py',
      integrity: H1,
    },
    { itemId: 'rt/py', space: 'system', toolType: null, executorId: null, integrity: H2 },
  ],
  registry: null,
  signature: null,
};

const GOLDEN_V1 = `{
  "lockfile_version": 1,
  "generated_at": "2026-02-11T00:00:00Z",
  "root": {
    "tool_id": "web/scraper",
    "version": "1.0.0",
    "integrity": "${H1}"
  },
  "resolved_chain": [
    {
      "item_id": "web/scraper",
      "space": "project",
      "tool_type": "python",
      "executor_id": "rt/py",
      "integrity": "${H1}"
    },
    {
      "item_id": "rt/py",
      "space": "system",
      "tool_type": null,
      "executor_id": null,
      "integrity": "${H2}"
    }
  ],
  "registry": null
}
`;

describe('serializeLockfile()', () => {
  it('writes the fixed key order, 2-space indent and a final newline', () => {
    expect(serializeLockfile(V1)).toBe(GOLDEN_V1);
  });

  it('puts _signature first when the lockfile is signed', () => {
    const text = serializeLockfile({ ...V1, signature: 'rye:signed:x' });
    expect(text).toBe(GOLDEN_V1.replace('{\n', '{\n  "_signature": "rye:signed:x",\n'));
  });

  it('writes verified_deps last with files sorted by code point', () => {
    const files = {
      b: `sha256:${H1}`,
      '9': `sha256:${H1}`,
      '10': `sha256:${H1}`,
      '😀': `sha256:${H1}`,
      '｡': `sha256:${H1}`,
      'a/z': `sha256:${H2}`,
    };
    const text = serializeLockfile({
      ...V1,
      lockfileVersion: 2,
      verifiedDeps: { anchorPath: '.ai/tools/web', scope: 'tool_dir', files },
    });
    const tail = text.slice(text.indexOf('"verified_deps"'));
    expect(
      tail.startsWith(
        '"verified_deps": {\n    "anchor_path": ".ai/tools/web",\n    "scope": "tool_dir",\n    "files": {',
      ),
    ).toBe(true);
    const order = [...tail.matchAll(/^ {6}"([^"]+)":/gmu)].map((m) => m[1]);
    expect(order).toEqual(['10', '9', 'a/z', 'b', '｡', '😀']);
    expect(text.endsWith('}\n  }\n}\n')).toBe(true);
  });

  it('is the form signing produces: signing only adds _signature first', () => {
    const { signer, trust } = makeSigner();
    const signed = signText(serializeLockfile(V1), {
      itemType: 'tool',
      extension: '.json',
      signer,
    });
    const parsed = parseLockfile(signed.text, 'signed');
    expect(parsed.signature).toMatch(/^rye:signed:/);
    expect(serializeLockfile(parsed)).toBe(signed.text);
    expect({ ...parsed, signature: null }).toStrictEqual(V1);
    expect(verifyText(signed.text, { itemType: 'tool', extension: '.json', trust }).ok).toBe(true);
  });

  it('refuses a v1 lockfile carrying verifiedDeps', () => {
    const bad = {
      ...V1,
      verifiedDeps: { anchorPath: 'a', scope: 'anchor', files: {} },
    } as Lockfile;
    expect(() => serializeLockfile(bad)).toThrow(
      expect.objectContaining({ code: 'LOCKFILE_INVALID' }),
    );
  });

  it('says why when the refusal has no list of issues (an unsupported version)', () => {
    const bad = { ...V1, lockfileVersion: 3 } as unknown as Lockfile;
    expect(() => serializeLockfile(bad)).toThrow(
      expect.objectContaining({
        code: 'LOCKFILE_INVALID',
        message: expect.stringMatching(
          /^Cannot serialize the lockfile of web\/scraper@1\.0\.0: Cannot read lockfile lockfile: lockfile_version 3 is not supported/,
        ),
      }),
    );
  });

  it('refuses a value parseLockfile would refuse', () => {
    const bad = { ...V1, root: { ...V1.root, integrity: 'nope' } };
    expect(() => serializeLockfile(bad)).toThrow(
      /Cannot serialize the lockfile of web\/scraper@1\.0\.0/,
    );
  });
});

// --- generated lockfiles -------------------------------------------------------

const hex = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((b) => Buffer.from(b).toString('hex'));
const anyText = fc.string({ unit: 'binary', maxLength: 12 });
const segment = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_+@-]{0,6}$/);
const itemId = fc
  .array(segment, { minLength: 1, maxLength: 3 })
  .map((s) => s.join('/'))
  .filter((id) => problemWith(id) === undefined);
const version = fc
  .stringMatching(/^[0-9A-Za-z.+-]{1,10}$/)
  .filter((v) => versionProblem(v) === undefined);
const space = fc.oneof(
  fc.constantFrom('project', 'user', 'system'),
  itemId.map((s) => `system:${s}`),
);
const relPath = fc
  .array(fc.string({ unit: 'binary', minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 })
  .map((s) => s.join('/'))
  .filter((p) => relativePathProblem(p) === undefined);
const timestamp = fc
  .tuple(
    fc.date({
      min: new Date('2000-01-01T00:00:00Z'),
      max: new Date('2099-12-31T00:00:00Z'),
      noInvalidDate: true,
    }),
    fc.constantFrom('ms', 'seconds', 'python'),
  )
  .map(([d, form]) => {
    const iso = d.toISOString();
    if (form === 'ms') return iso;
    return form === 'seconds' ? iso.replace(/\.\d{3}Z$/, 'Z') : iso.replace(/\.\d{3}Z$/, '+00:00');
  });
const element: fc.Arbitrary<LockedElement> = fc.record(
  {
    itemId,
    space,
    toolType: fc.option(anyText),
    executorId: fc.option(itemId),
    integrity: hex,
  },
  { noNullPrototype: true },
);
// Registry metadata is opaque JSON data: JSON has no -0, so values pass through
// JSON once to be in JSON's data model (where the round trip is exact).
const registry = fc.option(
  fc
    .dictionary(anyText, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
    .map((v) => JSON.parse(JSON.stringify(v)) as Record<string, unknown>),
);
const verifiedDeps: fc.Arbitrary<VerifiedDeps> = fc.record(
  {
    anchorPath: relPath,
    scope: fc.constantFrom('anchor', 'tool_dir', 'tool_siblings', 'tool_file'),
    files: fc.dictionary(
      relPath,
      hex.map((h) => `sha256:${h}`),
      { maxKeys: 6, noNullPrototype: true },
    ),
  },
  { noNullPrototype: true },
);

const lockfile: fc.Arbitrary<Lockfile> = fc
  .record({
    generatedAt: timestamp,
    version,
    chain: fc.array(element, { minLength: 1, maxLength: 10 }),
    registry,
    signature: fc.option(anyText.map((s) => `rye:signed:${s}`)),
    deps: fc.option(verifiedDeps),
  })
  .map(({ generatedAt, version: v, chain, registry: reg, signature, deps }) => {
    const first = chain[0] as LockedElement;
    const base = {
      generatedAt,
      root: { toolId: first.itemId, version: v, integrity: first.integrity },
      resolvedChain: chain,
      registry: reg,
      signature,
    };
    return deps === null
      ? { lockfileVersion: 1, ...base }
      : { lockfileVersion: 2, ...base, verifiedDeps: deps };
  });

describe('serializeLockfile() ∘ parseLockfile()', () => {
  it('round-trips generated v1 and v2 lockfiles, signed and unsigned', () => {
    fc.assert(
      fc.property(lockfile, (x) => {
        const text = serializeLockfile(x);
        const parsed = parseLockfile(text, 'generated');
        expect(parsed).toStrictEqual(x);
        expect(serializeLockfile(parsed)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('is stable byte for byte: equal lockfiles give equal text whatever the files order', () => {
    fc.assert(
      fc.property(lockfile, (x) => {
        const reordered: Lockfile =
          x.verifiedDeps === undefined
            ? x
            : {
                ...x,
                verifiedDeps: {
                  ...x.verifiedDeps,
                  files: Object.fromEntries(Object.entries(x.verifiedDeps.files).reverse()),
                },
              };
        expect(serializeLockfile(reordered)).toBe(serializeLockfile(x));
      }),
      { numRuns: 100 },
    );
  });
});

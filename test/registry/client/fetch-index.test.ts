/**
 * Pulls and `versions` against a scripted registry serving signed indexes:
 * the version pulled is the one the verified index names, and a replayed,
 * expired, forged or inconsistent index is refused before anything is written.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listVersions, pullItem, seenIndexesPath } from '../../../src/registry/index.js';
import { PYTHON_TOOL } from '../../helpers/items.js';
import { refusal } from '../../helpers/refusal.js';
import {
  clientSpaces,
  itemAnswer,
  makeKey,
  serveIndex,
  serveKey,
  sessionFor,
  snapshot,
  startFakeRegistry,
  type FakeRegistry,
  type IndexOptions,
} from './fixtures.js';

const registryKey = makeKey();
const author = makeKey();
const ROUTE = 'GET /v1/items/tool/alice/utils/greet';

const docOf = (version: string, extra = '') =>
  itemAnswer({
    registry: registryKey,
    author,
    itemType: 'tool',
    extension: '.py',
    text: PYTHON_TOOL('utils', extra),
    namespace: 'alice',
    itemId: 'utils/greet',
    version,
  });
const V1 = docOf('1.0.0');
const V2 = docOf('1.1.0', 'X = 2');

type Client = ReturnType<typeof clientSpaces>;

/** A registry serving 1.0.0 and 1.1.0 by exact version, and an index of both. */
async function setup(options: IndexOptions = {}): Promise<{ fake: FakeRegistry; c: Client }> {
  const fake = await startFakeRegistry();
  serveKey(fake, registryKey);
  fake.routes.set(ROUTE, (req) => {
    const version = new URL(req.url ?? '', 'http://x').searchParams.get('version');
    const doc = version === '1.0.0' ? V1.doc : version === '1.1.0' ? V2.doc : undefined;
    return doc === undefined
      ? {
          status: 404,
          json: { error: { code: 'REGISTRY_NOT_FOUND', message: 'asked for latest' } },
        }
      : { json: doc };
  });
  serveIndex(fake, registryKey, [V1.doc, V2.doc], { seq: 5, ...options });
  return { fake, c: clientSpaces() };
}

const pull = (c: Client, fake: FakeRegistry, version?: string) =>
  pullItem(sessionFor(c.spaces, fake.url), {
    itemType: 'tool',
    ref: 'alice/utils/greet',
    version,
    force: true,
  });

const target = (c: Client) => join(c.spaces.project, '.ai/tools/utils/greet.py');

const seenText = (c: Client) => {
  const path = seenIndexesPath(c.spaces);
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
};

/**
 * Expect a refusal with `code` that wrote nothing: neither the project nor the
 * seen seqs change (a first contact still pins the registry key: TOFU).
 */
async function expectRefusedUnchanged(c: Client, attempt: () => Promise<unknown>, code: string) {
  const project = snapshot(c.spaces.project);
  const seen = seenText(c);
  expect((await refusal(attempt())).code).toBe(code);
  expect(snapshot(c.spaces.project)).toEqual(project);
  expect(seenText(c)).toBe(seen);
}

describe('pulls through the signed index', () => {
  it('pulls the index’s latest by exact version and remembers the seq', async () => {
    const { fake, c } = await setup();
    const result = await pull(c, fake);
    expect(result).toMatchObject({ version: '1.1.0', yanked: false, index: { seq: 5 } });
    expect(readFileSync(target(c), 'utf8')).toBe(V2.authorText);
    expect(fake.seen).toContain(`${ROUTE}?version=1.1.0`);
    const seen = JSON.parse(readFileSync(seenIndexesPath(c.spaces), 'utf8'));
    expect(seen[fake.url]).toEqual({
      fingerprint: registryKey.signer.fingerprint,
      packages: { 'item:tool:alice/utils/greet': 5 },
    });
  });

  it('takes latest from the index, so a yanked version is never latest', async () => {
    const { fake, c } = await setup({ yanked: ['1.1.0'] });
    expect(await pull(c, fake)).toMatchObject({ version: '1.0.0', yanked: false });
    // Asked for exactly, a yanked version is served, marked yanked by the index
    // (the answer's own unsigned flag says false).
    expect(await pull(c, fake, '1.1.0')).toMatchObject({ version: '1.1.0', yanked: true });
  });

  it('refuses a version the index does not list, without asking for it', async () => {
    const { fake, c } = await setup();
    const project = snapshot(c.spaces.project);
    expect((await refusal(pull(c, fake, '2.0.0'))).code).toBe('REGISTRY_NOT_FOUND');
    expect(snapshot(c.spaces.project)).toEqual(project);
    expect(fake.seen.some((r) => r.includes('version=2.0.0'))).toBe(false);
  });

  it('refuses when every version is yanked and none is asked for', async () => {
    const { fake, c } = await setup({ yanked: ['1.0.0', '1.1.0'] });
    expect((await refusal(pull(c, fake))).code).toBe('REGISTRY_NOT_FOUND');
    expect(existsSync(target(c))).toBe(false);
  });

  it('refuses an answer whose attested content hash is not the index’s (REGISTRY_INDEX_MISMATCH)', async () => {
    const { fake, c } = await setup({
      edit: (index) => ({
        ...index,
        versions: index.versions.map((v) => ({ ...v, content_hash: 'b'.repeat(64) })),
      }),
    });
    const project = snapshot(c.spaces.project);
    expect((await refusal(pull(c, fake))).code).toBe('REGISTRY_INDEX_MISMATCH');
    expect(snapshot(c.spaces.project)).toEqual(project);
  });

  it('freeze: refuses an expired index, writing nothing', async () => {
    const issuedAt = new Date(Date.now() - 2 * 3_600_000);
    const { fake, c } = await setup({ issuedAt });
    await expectRefusedUnchanged(c, () => pull(c, fake), 'REGISTRY_INDEX_EXPIRED');
  });

  it('rollback: refuses an index with a lower seq than one seen, writing nothing', async () => {
    const { fake, c } = await setup({ seq: 5 });
    await pull(c, fake);
    serveIndex(fake, registryKey, [V1.doc, V2.doc], { seq: 5 });
    expect(await pull(c, fake)).toMatchObject({ status: 'unchanged' });
    serveIndex(fake, registryKey, [V1.doc], { seq: 4 });
    await expectRefusedUnchanged(c, () => pull(c, fake), 'REGISTRY_INDEX_ROLLBACK');
  });

  it('unyank: refuses the older index in which a since-yanked version was not yanked', async () => {
    const { fake, c } = await setup({ seq: 6, yanked: ['1.1.0'] });
    expect(await pull(c, fake)).toMatchObject({ version: '1.0.0' });
    serveIndex(fake, registryKey, [V1.doc, V2.doc], { seq: 5 });
    await expectRefusedUnchanged(c, () => pull(c, fake), 'REGISTRY_INDEX_ROLLBACK');
    expect(readFileSync(target(c), 'utf8')).toBe(V1.authorText);
  });

  it('key swap: refuses an index signed by another key, writing nothing', async () => {
    const { fake, c } = await setup();
    serveIndex(fake, makeKey(), [V1.doc, V2.doc], {
      edit: (index) => ({ ...index, registry_fingerprint: registryKey.signer.fingerprint }),
    });
    await expectRefusedUnchanged(c, () => pull(c, fake), 'REGISTRY_INDEX_SIGNATURE_INVALID');
  });

  it('refuses to read a damaged record of seen indexes instead of forgetting it', async () => {
    const { fake, c } = await setup();
    const path = seenIndexesPath(c.spaces);
    mkdirSync(join(c.spaces.user, '.ai/registry'), { recursive: true });
    writeFileSync(path, JSON.stringify({ [fake.url]: { fingerprint: 'x', packages: {} } }));
    expect((await refusal(pull(c, fake))).code).toBe('FILE_UNREADABLE');
    writeFileSync(
      path,
      JSON.stringify({
        [fake.url]: { fingerprint: registryKey.signer.fingerprint, packages: { p: -1 } },
      }),
    );
    expect((await refusal(pull(c, fake))).code).toBe('FILE_UNREADABLE');
    expect(existsSync(target(c))).toBe(false);
  });
});

describe('listVersions()', () => {
  it('lists the versions of the verified index, and refuses a rolled-back one', async () => {
    const { fake, c } = await setup({ seq: 5, yanked: ['1.1.0'] });
    const session = sessionFor(c.spaces, fake.url);
    expect(await listVersions(session, 'tool', 'alice/utils/greet')).toMatchObject({
      latest: '1.0.0',
      versions: [
        { version: '1.0.0', yanked: false },
        { version: '1.1.0', yanked: true },
      ],
      index: { seq: 5 },
    });
    expect(fake.seen.some((r) => r.startsWith('GET /v1/versions'))).toBe(false);
    serveIndex(fake, registryKey, [V1.doc, V2.doc], { seq: 3 });
    expect((await refusal(listVersions(session, 'tool', 'alice/utils/greet'))).code).toBe(
      'REGISTRY_INDEX_ROLLBACK',
    );
  });
});

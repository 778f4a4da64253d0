import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/integrity/index.js';
import { pullBundle, pullItem, repinRegistryKey } from '../../../src/registry/index.js';
import { PYTHON_TOOL } from '../../helpers/items.js';
import { refusal } from '../../helpers/refusal.js';
import {
  bundleAnswer,
  clientSpaces,
  itemAnswer,
  makeKey,
  reattest,
  serveIndex,
  serveKey,
  sessionFor,
  snapshot,
  startFakeRegistry,
  type FakeRegistry,
  type TestKey,
} from './fixtures.js';

const registryKey = makeKey();
const author = makeKey();
const ITEM_ROUTE = 'GET /v1/items/tool/alice/utils/greet';

function toolDoc(
  itemId = 'utils/greet',
  version = '1.0.0',
  key: TestKey = registryKey,
  text = PYTHON_TOOL('utils'),
) {
  return itemAnswer({
    registry: key,
    author,
    itemType: 'tool',
    extension: '.py',
    text,
    namespace: 'alice',
    itemId,
    version,
  });
}

async function setup(): Promise<{ fake: FakeRegistry; c: ReturnType<typeof clientSpaces> }> {
  const fake = await startFakeRegistry();
  serveKey(fake, registryKey);
  serveIndex(fake, registryKey, [toolDoc().doc]);
  serveIndex(fake, registryKey, [demo().doc]);
  return { fake, c: clientSpaces() };
}

const pull = (c: ReturnType<typeof clientSpaces>, fake: FakeRegistry, extra = {}) =>
  pullItem(sessionFor(c.spaces, fake.url), {
    itemType: 'tool',
    ref: 'alice/utils/greet',
    ...extra,
  });

describe('pullItem() against a scripted registry', () => {
  it('writes the author-signed file, pins the key, trusts the author in the project', async () => {
    const { fake, c } = await setup();
    const { doc, authorText } = toolDoc();
    fake.routes.set(ITEM_ROUTE, { json: doc });
    const result = await pull(c, fake);
    const path = join(c.spaces.project, '.ai/tools/utils/greet.py');
    expect(readFileSync(path, 'utf8')).toBe(authorText);
    expect(result).toMatchObject({ status: 'written', version: '1.0.0', path });
    const port = new URL(fake.url).port;
    const toml = readFileSync(
      join(c.spaces.project, `.ai/trusted_keys/${author.signer.fingerprint}.toml`),
      'utf8',
    );
    expect(toml).toContain(`owner = "alice@127.0.0.1:${port}"`);
    const pins = JSON.parse(
      readFileSync(join(c.spaces.user, '.ai/registry/known_registries.json'), 'utf8'),
    ) as Record<string, { fingerprint: string }>;
    expect(pins[fake.url]?.fingerprint).toBe(registryKey.signer.fingerprint);
    // The version comes from the signed index: the registry is never asked for "latest".
    expect(fake.seen).toContain(`${ITEM_ROUTE}?version=1.0.0`);
    expect(fake.seen.some((r) => r.startsWith('GET /v1/index?'))).toBe(true);
  });

  it('refuses a genuine answer for another item than asked, and writes nothing', async () => {
    const { fake, c } = await setup();
    fake.routes.set(ITEM_ROUTE, { json: toolDoc('utils/other').doc });
    const before = snapshot(c.spaces.project);
    expect((await refusal(pull(c, fake))).code).toBe('REGISTRY_ATTESTATION_MISMATCH');
    expect(snapshot(c.spaces.project)).toEqual(before);
  });

  it('refuses a genuine answer for another version than asked', async () => {
    const { fake, c } = await setup();
    fake.routes.set(ITEM_ROUTE, { json: toolDoc('utils/greet', '0.9.0').doc });
    expect((await refusal(pull(c, fake, { version: '1.0.0' }))).code).toBe(
      'REGISTRY_ATTESTATION_MISMATCH',
    );
    expect(fake.seen.some((r) => r.includes('version=1.0.0'))).toBe(true);
  });

  it('refuses a forged attestation', async () => {
    const { fake, c } = await setup();
    fake.routes.set(ITEM_ROUTE, { json: reattest(toolDoc().doc, makeKey().signer, {}) });
    expect((await refusal(pull(c, fake))).code).toBe('REGISTRY_ATTESTATION_INVALID');
    expect(existsSync(join(c.spaces.project, '.ai'))).toBe(false);
  });

  it('refuses swapped content', async () => {
    const { fake, c } = await setup();
    const doc = toolDoc().doc;
    const evil = toolDoc(
      'utils/greet',
      '1.0.0',
      registryKey,
      PYTHON_TOOL('utils', 'import os'),
    ).doc;
    fake.routes.set(ITEM_ROUTE, { json: { ...doc, content: evil.content } });
    expect((await refusal(pull(c, fake))).code).toBe('REGISTRY_CONTENT_INVALID');
    expect(existsSync(join(c.spaces.project, '.ai'))).toBe(false);
  });

  it('refuses a changed registry key and re-pins only the exact served fingerprint', async () => {
    const { fake, c } = await setup();
    fake.routes.set(ITEM_ROUTE, { json: toolDoc().doc });
    await pull(c, fake);
    const rotated = makeKey();
    serveKey(fake, rotated);
    serveIndex(fake, rotated, [toolDoc('utils/greet', '1.0.0', rotated).doc]);
    fake.routes.set(ITEM_ROUTE, { json: toolDoc('utils/greet', '1.0.0', rotated).doc });
    const refused = await refusal(pull(c, fake, { force: true }));
    expect(refused.code).toBe('REGISTRY_KEY_CHANGED');
    expect(refused.message).toContain(registryKey.signer.fingerprint);
    expect(refused.message).toContain(rotated.signer.fingerprint);
    expect(refused.message).toContain(
      `rye registry pin --registry ${fake.url} --fingerprint ${rotated.signer.fingerprint}`,
    );
    const session = sessionFor(c.spaces, fake.url);
    expect((await refusal(repinRegistryKey(session, registryKey.signer.fingerprint))).code).toBe(
      'REGISTRY_KEY_CHANGED',
    );
    expect(await repinRegistryKey(session, rotated.signer.fingerprint)).toMatchObject({
      previous: registryKey.signer.fingerprint,
    });
    expect(await pull(c, fake)).toMatchObject({ status: 'unchanged' });
  });

  it('refuses a different file at the target unless --force; an identical one is a no-op', async () => {
    const { fake, c } = await setup();
    const { doc, authorText } = toolDoc();
    fake.routes.set(ITEM_ROUTE, { json: doc });
    const path = join(c.spaces.project, '.ai/tools/utils/greet.py');
    mkdirSync(join(c.spaces.project, '.ai/tools/utils'), { recursive: true });
    writeFileSync(path, 'mine\n');
    expect((await refusal(pull(c, fake))).code).toBe('REGISTRY_PULL_CONFLICT');
    expect(readFileSync(path, 'utf8')).toBe('mine\n');
    expect(await pull(c, fake, { force: true })).toMatchObject({ status: 'replaced' });
    expect(readFileSync(path, 'utf8')).toBe(authorText);
    expect(await pull(c, fake)).toMatchObject({ status: 'unchanged' });
  });

  it('refuses the same id with another extension unless --force, which removes it', async () => {
    const { fake, c } = await setup();
    fake.routes.set(ITEM_ROUTE, { json: toolDoc().doc });
    const other = join(c.spaces.project, '.ai/tools/utils/greet.sh');
    mkdirSync(join(c.spaces.project, '.ai/tools/utils'), { recursive: true });
    writeFileSync(other, 'echo hi\n');
    expect((await refusal(pull(c, fake))).code).toBe('REGISTRY_PULL_CONFLICT');
    await pull(c, fake, { force: true });
    expect(existsSync(other)).toBe(false);
  });

  it('refuses to write through a symbolic link in the project', async () => {
    const { fake, c } = await setup();
    fake.routes.set(ITEM_ROUTE, { json: toolDoc().doc });
    const outside = join(c.root, 'outside');
    mkdirSync(outside);
    mkdirSync(join(c.spaces.project, '.ai'));
    symlinkSync(outside, join(c.spaces.project, '.ai/tools'));
    expect((await refusal(pull(c, fake))).code).toBe('INTEGRITY_SYMLINK_ESCAPE');
    expect(snapshot(outside)).toEqual({});
  });

  it('never replaces a trusted-key file already in the project', async () => {
    const { fake, c } = await setup();
    fake.routes.set(ITEM_ROUTE, { json: toolDoc().doc });
    const keyFile = join(c.spaces.project, `.ai/trusted_keys/${author.signer.fingerprint}.toml`);
    mkdirSync(join(c.spaces.project, '.ai/trusted_keys'), { recursive: true });
    writeFileSync(keyFile, 'kept\n');
    expect(await pull(c, fake)).toMatchObject({ trusted_key: { added: false } });
    expect(readFileSync(keyFile, 'utf8')).toBe('kept\n');
  });

  it('maps registry errors: a known code, an unknown code, not JSON, nobody listening', async () => {
    const { fake, c } = await setup();
    fake.routes.set(ITEM_ROUTE, {
      status: 404,
      json: { error: { code: 'REGISTRY_NOT_FOUND', message: 'no such item' } },
    });
    expect((await refusal(pull(c, fake))).code).toBe('REGISTRY_NOT_FOUND');
    fake.routes.set(ITEM_ROUTE, {
      status: 500,
      json: { error: { code: 'SOMETHING_NEW', message: 'x' } },
    });
    expect((await refusal(pull(c, fake))).code).toBe('REGISTRY_BAD_RESPONSE');
    fake.routes.set(ITEM_ROUTE, { bytes: Buffer.from('<html>') });
    expect((await refusal(pull(c, fake))).code).toBe('REGISTRY_BAD_RESPONSE');
    fake.routes.set(ITEM_ROUTE, { json: { ...toolDoc().doc, yanked: 'no' } });
    expect((await refusal(pull(c, fake))).code).toBe('REGISTRY_BAD_RESPONSE');
    fake.routes.set(ITEM_ROUTE, { status: 302, json: {} });
    expect((await refusal(pull(c, fake))).code).toBe('REGISTRY_BAD_RESPONSE');
    const url = fake.url;
    await fake.close();
    const closed = pullItem(sessionFor(c.spaces, url), {
      itemType: 'tool',
      ref: 'alice/utils/greet',
    });
    expect((await refusal(closed)).code).toBe('REGISTRY_UNREACHABLE');
  });

  it('refuses a well-known key whose fingerprint is not its key’s', async () => {
    const { fake, c } = await setup();
    fake.routes.set('GET /.well-known/rye-registry.json', {
      json: {
        protocol: 1,
        algorithm: 'ed25519',
        public_key: registryKey.publicKeyPem,
        fingerprint: makeKey().signer.fingerprint,
      },
    });
    expect((await refusal(pull(c, fake))).code).toBe('REGISTRY_BAD_RESPONSE');
  });
});

const BUNDLE_ROUTE = 'GET /v1/bundles/alice/apps/demo';
const FILES = {
  '.ai/knowledge/apps/demo/notes.md': 'notes\n',
  '.ai/plans/demo/plan.md': '# plan\n',
  'demo-app/index.html': '<h1>demo</h1>\n',
  'demo-app/logo.bin': Buffer.from([0, 1, 2, 3, 255]),
};

function serveBundle(fake: FakeRegistry, answer: ReturnType<typeof bundleAnswer>): void {
  fake.routes.set(BUNDLE_ROUTE, { json: answer.doc });
  serveIndex(fake, registryKey, [answer.doc]);
  for (const [sha, bytes] of answer.blobs) fake.routes.set(`GET /v1/blobs/${sha}`, { bytes });
}

const demo = (extra: Partial<Parameters<typeof bundleAnswer>[0]> = {}) =>
  bundleAnswer({
    registry: registryKey,
    author,
    namespace: 'alice',
    bundleId: 'apps/demo',
    version: '1.0.0',
    files: FILES,
    includes: ['demo-app'],
    ...extra,
  });

const pullDemo = (c: ReturnType<typeof clientSpaces>, fake: FakeRegistry, force = false) =>
  pullBundle(sessionFor(c.spaces, fake.url), { ref: 'alice/apps/demo', force });

describe('pullBundle() against a scripted registry', () => {
  it('writes every file and the author-signed manifest after checking all of them', async () => {
    const { fake, c } = await setup();
    const answer = demo();
    serveBundle(fake, answer);
    const result = await pullDemo(c, fake);
    expect(result['files_written']).toEqual(Object.keys(FILES).sort());
    for (const [rel, content] of Object.entries(FILES))
      expect(readFileSync(join(c.spaces.project, rel))).toEqual(Buffer.from(content));
    expect(
      readFileSync(join(c.spaces.project, '.ai/bundles/apps/demo/manifest.yaml'), 'utf8'),
    ).toBe(answer.authorManifest);
    expect(await pullDemo(c, fake)).toMatchObject({ files_written: [] });
  });

  it('writes nothing when one file’s bytes are wrong', async () => {
    const { fake, c } = await setup();
    const answer = demo();
    serveBundle(fake, answer);
    const sha = sha256Hex(Buffer.from(FILES['demo-app/index.html']));
    fake.routes.set(`GET /v1/blobs/${sha}`, { bytes: Buffer.from('<h1>pwned</h1>\n') });
    const before = snapshot(c.spaces.project);
    const refused = await refusal(pullDemo(c, fake));
    expect(refused.code).toBe('REGISTRY_CONTENT_INVALID');
    expect(refused.details['path']).toBe('demo-app/index.html');
    expect(snapshot(c.spaces.project)).toEqual(before);
  });

  it('writes nothing when a blob is longer than announced', async () => {
    const { fake, c } = await setup();
    serveBundle(fake, demo());
    const sha = sha256Hex(Buffer.from(FILES['demo-app/index.html']));
    fake.routes.set(`GET /v1/blobs/${sha}`, { bytes: Buffer.alloc(10_000, 1) });
    const before = snapshot(c.spaces.project);
    expect((await refusal(pullDemo(c, fake))).code).toBe('REGISTRY_CONTENT_INVALID');
    expect(snapshot(c.spaces.project)).toEqual(before);
  });

  it('refuses a signed manifest whose path escapes the project, before any download', async () => {
    const { fake, c } = await setup();
    const answer = demo({
      editManifest: (text) => text.replace('demo-app/index.html', 'demo-app/../../escape.html'),
    });
    serveBundle(fake, answer);
    const before = snapshot(c.spaces.project);
    const refused = await refusal(pullDemo(c, fake));
    expect(['BUNDLE_MANIFEST_INVALID', 'REGISTRY_CONTENT_INVALID']).toContain(refused.code);
    expect(snapshot(c.spaces.project)).toEqual(before);
    expect(existsSync(join(c.root, 'escape.html'))).toBe(false);
    expect(fake.seen.some((r) => r.startsWith('GET /v1/blobs/'))).toBe(false);
  });

  it('refuses a signed manifest listing a file outside the bundle’s folders', async () => {
    const { fake, c } = await setup();
    const answer = demo({
      files: { ...FILES, '.ai/tools/rye/core/runtimes/python_script_runtime.yaml': 'evil: 1\n' },
    });
    serveBundle(fake, answer);
    const before = snapshot(c.spaces.project);
    expect((await refusal(pullDemo(c, fake))).code).toBe('REGISTRY_CONTENT_INVALID');
    expect(snapshot(c.spaces.project)).toEqual(before);
  });

  it('refuses an answer whose file list differs from the signed manifest', async () => {
    const { fake, c } = await setup();
    const answer = demo();
    const extra = { path: 'demo-app/extra.js', sha256: 'c'.repeat(64), size: 1 };
    fake.routes.set(BUNDLE_ROUTE, { json: { ...answer.doc, files: [...answer.doc.files, extra] } });
    expect((await refusal(pullDemo(c, fake))).code).toBe('REGISTRY_CONTENT_INVALID');
    fake.routes.set(BUNDLE_ROUTE, { json: { ...answer.doc, files: answer.doc.files.slice(1) } });
    expect((await refusal(pullDemo(c, fake))).code).toBe('REGISTRY_CONTENT_INVALID');
  });

  it('refuses conflicts unless --force, writing nothing', async () => {
    const { fake, c } = await setup();
    serveBundle(fake, demo());
    mkdirSync(join(c.spaces.project, 'demo-app'));
    writeFileSync(join(c.spaces.project, 'demo-app/index.html'), 'mine\n');
    const before = snapshot(c.spaces.project);
    expect((await refusal(pullDemo(c, fake))).code).toBe('REGISTRY_PULL_CONFLICT');
    expect(snapshot(c.spaces.project)).toEqual(before);
    await pullDemo(c, fake, true);
    expect(readFileSync(join(c.spaces.project, 'demo-app/index.html'), 'utf8')).toBe(
      FILES['demo-app/index.html'],
    );
  });

  it('refuses a bundle answer for another bundle id', async () => {
    const { fake, c } = await setup();
    const other = demo({ bundleId: 'apps/other', files: { 'demo-app/a.txt': 'a\n' } });
    fake.routes.set(BUNDLE_ROUTE, { json: other.doc });
    expect((await refusal(pullDemo(c, fake))).code).toBe('REGISTRY_ATTESTATION_MISMATCH');
  });
});

describe('documents', () => {
  it('an item document with a wrong field type is refused before verification', async () => {
    const { fake, c } = await setup();
    const { attestation: _dropped, ...doc } = toolDoc().doc;
    fake.routes.set(ITEM_ROUTE, { json: doc });
    expect((await refusal(pull(c, fake))).code).toBe('REGISTRY_BAD_RESPONSE');
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  directiveSpan,
  encodeSignature,
  formatSignaturePayload,
  parsePublicKey,
  resealText,
  sha256Hex,
  signBytes,
  signText,
  trustSetOf,
  tryParseSignaturePayload,
  verifyText,
} from '../../../src/integrity/index.js';
import { assertStatementSigned, parseStatement } from '../../../src/registry/index.js';
import { DIRECTIVE, KNOWLEDGE, PYTHON_TOOL } from '../../helpers/items.js';
import { makeSigner } from '../../helpers/keys.js';
import {
  expectRefused,
  makeAuthor,
  makeRegistry,
  toolPush,
  type Author,
  type TestRegistry,
} from './fixtures.js';

let registry: TestRegistry;
let alice: Author;
beforeEach(async () => {
  registry = await makeRegistry();
  alice = await makeAuthor(registry, 'alice');
});
afterEach(async () => {
  await registry.close();
});

const push = (body: unknown, token = alice.token) =>
  registry.call('POST', '/v1/items', { token, body });

describe('POST /v1/items and GET /v1/items/…', () => {
  it('attests a tool: registry-signed content, author signature kept, signed statement', async () => {
    const body = toolPush(alice.signer, 'alice');
    const answer = await push(body);
    expect(answer.status).toBe(201);
    const doc = answer.json;
    expect(doc).toMatchObject({
      kind: 'item',
      item_type: 'tool',
      namespace: 'alice',
      item_id: 'utils/greet',
      version: '1.0.0',
      extension: '.py',
      yanked: false,
      published_at: '2026-01-02T03:04:05Z',
      author: { fingerprint: alice.signer.fingerprint, public_key: alice.publicKeyPem },
    });

    const registryTrust = trustSetOf([
      {
        ...parsePublicKey(registry.key.publicKeyPem),
        owner: 'registry',
        attestation: '',
        source: null,
      },
    ]);
    const served = verifyText(doc.content, {
      itemType: 'tool',
      extension: '.py',
      trust: registryTrust,
    });
    expect(served.verdict).toBe('ok');
    expect(served.provenance).toBe('rye-registry@alice');
    expect(served.fingerprint).toBe(registry.key.fingerprint);

    const authorLine = body['content']!.split('\n')[0]!.slice(2);
    expect(doc.author.signature).toBe(authorLine);
    const restored = resealText(doc.content, {
      itemType: 'tool',
      extension: '.py',
      fields: tryParseSignaturePayload(doc.author.signature)!,
    });
    expect(restored.text).toBe(body['content']);

    assertStatementSigned(
      parsePublicKey(registry.key.publicKeyPem).key,
      doc.attestation.statement,
      doc.attestation.signature,
    );
    expect(parseStatement(doc.attestation.statement)).toEqual({
      rye_attestation: 1,
      kind: 'item',
      item_type: 'tool',
      namespace: 'alice',
      item_id: 'utils/greet',
      version: '1.0.0',
      extension: '.py',
      content_hash: served.contentHash,
      author_fingerprint: alice.signer.fingerprint,
      registry_fingerprint: registry.key.fingerprint,
      attested_at: '2026-01-02T03:04:05Z',
    });

    const pulled = await registry.call('GET', '/v1/items/tool/alice/utils/greet');
    expect(pulled.status).toBe(200);
    expect(pulled.json).toEqual(doc);
    const exact = await registry.call('GET', '/v1/items/tool/alice/utils/greet?version=1.0.0');
    expect(exact.json).toEqual(doc);
  });

  it('publishes directives and knowledge signed with full coverage', async () => {
    const directive = signText(DIRECTIVE('build_app', 'apps'), {
      itemType: 'directive',
      extension: '.md',
      signer: alice.signer,
    }).text;
    const d = await push({
      item_type: 'directive',
      namespace: 'alice',
      item_id: 'apps/build_app',
      version: '1.0.0',
      extension: '.md',
      content: directive,
    });
    expect(d.status).toBe(201);
    expect(d.json.content.startsWith('<!-- rye:signed:')).toBe(true);
    const knowledge = signText(KNOWLEDGE('notes'), {
      itemType: 'knowledge',
      extension: '.md',
      signer: alice.signer,
    }).text;
    const k = await push({
      item_type: 'knowledge',
      namespace: 'alice',
      item_id: 'notes',
      version: '1.0.0',
      extension: '.md',
      content: knowledge,
    });
    expect(k.status).toBe(201);
  });

  it('replays the same content with 200 and the stored attestation; other content is 409', async () => {
    const body = toolPush(alice.signer, 'alice');
    const first = await push(body);
    const resigned = toolPush(alice.signer, 'alice'); // same content, new signature
    const again = await push(resigned);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    const changed = await push(toolPush(alice.signer, 'alice', { extra: 'X = 1' }));
    expectRefused(changed, 409, 'REGISTRY_VERSION_CONFLICT');
  });

  it('pull without a version serves the highest semver, not the newest push', async () => {
    for (const version of ['1.10.0', '1.9.0', '2.0.0-rc.1', '1.2.0']) {
      expect((await push(toolPush(alice.signer, 'alice', { version }))).status).toBe(201);
    }
    const latest = await registry.call('GET', '/v1/items/tool/alice/utils/greet');
    expect(latest.json.version).toBe('2.0.0-rc.1');
  });

  it('answers 404 for unknown items, versions and namespaces', async () => {
    await push(toolPush(alice.signer, 'alice'));
    for (const path of [
      '/v1/items/tool/alice/utils/nope',
      '/v1/items/tool/alice/utils/greet?version=9.9.9',
      '/v1/items/directive/alice/utils/greet',
      '/v1/items/tool/nobody/utils/greet',
    ]) {
      expectRefused(await registry.call('GET', path), 404, 'REGISTRY_NOT_FOUND');
    }
    const backslash = await registry.call('GET', '/v1/items/tool/alice/utils%5Cgreet');
    expectRefused(backslash, 400, 'REGISTRY_REF_INVALID');
    const dots = await registry.call('GET', '/v1/items/tool/alice/utils%2F..%2F..%2Fx');
    expectRefused(dots, 400, 'REGISTRY_REF_INVALID');
    const badType = await registry.call('GET', '/v1/items/widget/alice/utils/greet');
    expectRefused(badType, 400, 'REGISTRY_INVALID_REQUEST');
  });
});

describe('POST /v1/items refusals', () => {
  it("refuses a push into another user's namespace (403 REGISTRY_FORBIDDEN)", async () => {
    const bob = await makeAuthor(registry, 'bob');
    expectRefused(await push(toolPush(bob.signer, 'alice'), bob.token), 403, 'REGISTRY_FORBIDDEN');
  });

  it('refuses a push without a token (401 REGISTRY_AUTH_REQUIRED)', async () => {
    const answer = await registry.call('POST', '/v1/items', {
      body: toolPush(alice.signer, 'alice'),
    });
    expectRefused(answer, 401, 'REGISTRY_AUTH_REQUIRED');
  });

  it('refuses content signed by a key not registered to the account (422 REGISTRY_AUTHOR_KEY_UNKNOWN)', async () => {
    const stranger = makeSigner();
    const answer = await push(toolPush(stranger.signer, 'alice'));
    expectRefused(answer, 422, 'REGISTRY_AUTHOR_KEY_UNKNOWN');
    expect(answer.json.error.message).toContain(stranger.signer.fingerprint);
  });

  it("refuses content signed with another account's key (422 REGISTRY_AUTHOR_KEY_UNKNOWN)", async () => {
    const bob = await makeAuthor(registry, 'bob');
    expectRefused(await push(toolPush(bob.signer, 'alice')), 422, 'REGISTRY_AUTHOR_KEY_UNKNOWN');
  });

  it('refuses unsigned content (422 REGISTRY_SIGNATURE_INVALID)', async () => {
    const body = { ...toolPush(alice.signer, 'alice'), content: PYTHON_TOOL('utils') };
    const answer = await push(body);
    expectRefused(answer, 422, 'REGISTRY_SIGNATURE_INVALID');
    expect(answer.json.error.message).toContain('unsigned');
  });

  it('refuses content edited after signing (422 REGISTRY_SIGNATURE_INVALID)', async () => {
    const body = toolPush(alice.signer, 'alice');
    const edited = { ...body, content: body['content']!.replace('print("hi")', 'print("pwned")') };
    const answer = await push(edited);
    expectRefused(answer, 422, 'REGISTRY_SIGNATURE_INVALID');
    expect(answer.json.error.message).toContain('hash_mismatch');
  });

  it('refuses a bad Ed25519 signature (422 REGISTRY_SIGNATURE_INVALID)', async () => {
    const body = toolPush(alice.signer, 'alice');
    const fields = tryParseSignaturePayload(body['content']!.split('\n')[0]!.slice(2))!;
    const forged = formatSignaturePayload({
      ...fields,
      signature: encodeSignature(Buffer.alloc(64, 7)),
    });
    const content = body['content']!.replace(/^# [^\n]*/, `# ${forged}`);
    expectRefused(await push({ ...body, content }), 422, 'REGISTRY_SIGNATURE_INVALID');
  });

  it('refuses an author signature that already carries a provenance suffix (422)', async () => {
    const body = toolPush(alice.signer, 'alice');
    const content = body['content']!.replace(/^(# [^\n]*)/, '$1|rye-registry@alice');
    const answer = await push({ ...body, content });
    expectRefused(answer, 422, 'REGISTRY_SIGNATURE_INVALID');
    expect(answer.json.error.message).toContain('provenance');
  });

  it('refuses a directive signed over its <directive> span only (422 REGISTRY_SIGNATURE_INVALID)', async () => {
    const text = DIRECTIVE('build_app', 'apps');
    const contentHash = sha256Hex(directiveSpan(text)!);
    const signature = signBytes(alice.signer.privateKey, Buffer.from(contentHash, 'latin1'));
    const payload = formatSignaturePayload({
      timestamp: '2026-01-01T00:00:00Z',
      contentHash,
      signature: encodeSignature(signature),
      fingerprint: alice.signer.fingerprint,
      provenance: null,
    });
    const answer = await push({
      item_type: 'directive',
      namespace: 'alice',
      item_id: 'apps/build_app',
      version: '1.0.0',
      extension: '.md',
      content: `<!-- ${payload} -->\n${text}`,
    });
    expectRefused(answer, 422, 'REGISTRY_SIGNATURE_INVALID');
    expect(answer.json.error.message).toContain('rye sign');
  });

  it.each(['../etc/passwd', 'utils/../../x', '/abs/greet', 'utils\\greet', 'C:/x', 'a//b'])(
    'refuses the item id %j (400 REGISTRY_REF_INVALID)',
    async (itemId) => {
      const answer = await push({ ...toolPush(alice.signer, 'alice'), item_id: itemId });
      expectRefused(answer, 400, 'REGISTRY_REF_INVALID');
    },
  );

  it('refuses an empty item id (400 REGISTRY_INVALID_REQUEST)', async () => {
    const answer = await push({ ...toolPush(alice.signer, 'alice'), item_id: '' });
    expectRefused(answer, 400, 'REGISTRY_INVALID_REQUEST');
  });

  it('refuses ids with .. with REGISTRY_REF_INVALID', async () => {
    const answer = await push({ ...toolPush(alice.signer, 'alice'), item_id: 'utils/../greet' });
    expectRefused(answer, 400, 'REGISTRY_REF_INVALID');
  });

  it.each(['1.0', 'v1.0.0', '01.0.0', '1.0.0 ', 'latest'])(
    'refuses the version %j (400 REGISTRY_REF_INVALID)',
    async (version) => {
      const answer = await push({ ...toolPush(alice.signer, 'alice'), version });
      expectRefused(answer, 400, 'REGISTRY_REF_INVALID');
    },
  );

  it('refuses an extension the item type does not have (400)', async () => {
    for (const extension of ['.md', '.exe', 'py', '.PY']) {
      const answer = await push({ ...toolPush(alice.signer, 'alice'), extension });
      expectRefused(answer, 400, 'REGISTRY_INVALID_REQUEST');
    }
  });

  it('refuses invalid item metadata (422 VALIDATION_FAILED) with the issues in the message', async () => {
    const body = toolPush(alice.signer, 'alice', { category: 'utils' });
    const answer = await push({ ...body, item_id: 'other/greet' });
    expectRefused(answer, 422, 'VALIDATION_FAILED');
    expect(answer.json.error.message).toContain('category');
  });

  it('refuses unknown fields, missing fields and wrong types (400)', async () => {
    const body = toolPush(alice.signer, 'alice');
    const { content: _content, ...missing } = body;
    for (const bad of [
      { ...body, extra: 1 },
      missing,
      { ...body, version: 1 },
      { ...body, item_type: 'widget' },
    ]) {
      expectRefused(await push(bad), 400, 'REGISTRY_INVALID_REQUEST');
    }
  });

  it('refuses content larger than the item limit (413)', async () => {
    const small = await makeRegistry({ limits: { itemBytes: 300 } });
    try {
      const author = await makeAuthor(small, 'alice');
      const answer = await small.call('POST', '/v1/items', {
        token: author.token,
        body: toolPush(author.signer, 'alice', { extra: `# ${'x'.repeat(400)}` }),
      });
      expectRefused(answer, 413, 'REGISTRY_BODY_TOO_LARGE');
    } finally {
      await small.close();
    }
  });
});

describe('JSON items', () => {
  it('attests a .json tool: the signature lives in its _signature field', async () => {
    const text = `${JSON.stringify(
      {
        version: '1.0.0',
        tool_type: 'http',
        executor_id: null,
        category: 'utils',
        description: 'A JSON tool',
        config: { url: 'https://example.com' },
      },
      null,
      2,
    )}\n`;
    const signed = signText(text, { itemType: 'tool', extension: '.json', signer: alice.signer });
    const answer = await push({
      item_type: 'tool',
      namespace: 'alice',
      item_id: 'utils/fetcher',
      version: '1.0.0',
      extension: '.json',
      content: signed.text,
    });
    expect(answer.status).toBe(201);
    expect(answer.json.author.signature).toBe(formatSignaturePayload(signed.fields));
    const registryTrust = trustSetOf([
      {
        ...parsePublicKey(registry.key.publicKeyPem),
        owner: 'registry',
        attestation: '',
        source: null,
      },
    ]);
    const served = verifyText(answer.json.content, {
      itemType: 'tool',
      extension: '.json',
      trust: registryTrust,
    });
    expect(served.verdict).toBe('ok');
    expect(served.provenance).toBe('rye-registry@alice');
  });
});

describe('POST /v1/items: the registry version is the declared version (issue 11)', () => {
  it('refuses another version than the item declares (422), and publishes nothing', async () => {
    const body = { ...toolPush(alice.signer, 'alice'), version: '2.0.0' };
    const answer = await registry.call('POST', '/v1/items', { token: alice.token, body });
    expectRefused(answer, 422, 'REGISTRY_VERSION_MISMATCH');
    expect(answer.json.error.message).toContain('declares version 1.0.0');
    const versions = await registry.call(
      'GET',
      '/v1/versions?kind=item&item_type=tool&namespace=alice&item_id=utils/greet',
    );
    expect(versions.status).toBe(404);
  });

  it('accepts it with allow_version_mismatch: true, and only a boolean there', async () => {
    const body = { ...toolPush(alice.signer, 'alice'), version: '2.0.0' };
    const notBoolean = await registry.call('POST', '/v1/items', {
      token: alice.token,
      body: { ...body, allow_version_mismatch: 'yes' },
    });
    expectRefused(notBoolean, 400, 'REGISTRY_INVALID_REQUEST');
    const allowed = await registry.call('POST', '/v1/items', {
      token: alice.token,
      body: { ...body, allow_version_mismatch: true },
    });
    expect(allowed.status).toBe(201);
    expect(allowed.json.version).toBe('2.0.0');
  });
});

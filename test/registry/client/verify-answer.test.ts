import { describe, expect, it } from 'vitest';
import { isRyeError, type ErrorCode } from '../../../src/errors/index.js';
import {
  encodeSignature,
  formatSignaturePayload,
  signBytes,
  signText,
  tryParseSignaturePayload,
} from '../../../src/integrity/index.js';
import {
  verifyAnswer,
  type AskedFor,
  type ItemVersionDocument,
} from '../../../src/registry/index.js';
import { DIRECTIVE, KNOWLEDGE, PYTHON_TOOL } from '../../helpers/items.js';
import { bundleAnswer, itemAnswer, makeKey, reattest } from './fixtures.js';

const registry = makeKey();
const author = makeKey();
const pinned = { fingerprint: registry.signer.fingerprint, publicKeyPem: registry.publicKeyPem };
const TOOL = PYTHON_TOOL('utils');
const asked: AskedFor = {
  kind: 'item',
  itemType: 'tool',
  namespace: 'alice',
  itemId: 'utils/greet',
  version: '1.0.0',
};
const genuine = () =>
  itemAnswer({
    registry,
    author,
    itemType: 'tool',
    extension: '.py',
    text: TOOL,
    namespace: 'alice',
    itemId: 'utils/greet',
    version: '1.0.0',
  });

function codeOf(fn: () => unknown): ErrorCode {
  try {
    fn();
  } catch (error) {
    if (isRyeError(error)) return error.code;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('verifyAnswer()', () => {
  it('returns exactly the author-signed text and the author key for a genuine tool', () => {
    const { doc, authorText } = genuine();
    const verified = verifyAnswer(asked, pinned, doc);
    expect(verified.text).toBe(authorText);
    expect(verified.text).not.toContain('rye-registry@');
    expect(verified.author.fingerprint).toBe(author.signer.fingerprint);
    expect(verified.statement).toMatchObject({ item_id: 'utils/greet', version: '1.0.0' });
  });

  it.each([
    ['directive', '.md', DIRECTIVE('greet', 'utils')],
    ['knowledge', '.md', KNOWLEDGE('greet')],
    ['tool', '.yaml', 'tool_type: runtime\nexecutor_id: null\n'],
    ['tool', '.mjs', 'export const x = 1;\n'],
  ] as const)('accepts a genuine %s (%s)', (itemType, extension, text) => {
    const { doc, authorText } = itemAnswer({
      registry,
      author,
      itemType,
      extension,
      text,
      namespace: 'alice',
      itemId: 'utils/greet',
      version: '1.0.0',
    });
    expect(verifyAnswer({ ...asked, itemType }, pinned, doc).text).toBe(authorText);
  });

  it('accepts any version when the latest was asked for', () => {
    expect(() => verifyAnswer({ ...asked, version: null }, pinned, genuine().doc)).not.toThrow();
  });

  it.each([
    ['another id', { itemId: 'utils/other' }],
    ['another version', { version: '2.0.0' }],
    ['another namespace', { namespace: 'mallory' }],
    ['another type', { itemType: 'knowledge' as const }],
    ['another kind', { kind: 'bundle' as const, itemType: null }],
  ])('refuses a genuine answer for %s than was asked', (_what, change) => {
    expect(codeOf(() => verifyAnswer({ ...asked, ...change }, pinned, genuine().doc))).toBe(
      'REGISTRY_ATTESTATION_MISMATCH',
    );
  });

  it.each([
    ['item_id', { item_id: 'utils/other' }],
    ['version', { version: '1.0.1' }],
    ['namespace', { namespace: 'bob' }],
    ['extension', { extension: '.sh' }],
    ['author fingerprint', { author: { ...genuine().doc.author, fingerprint: '0'.repeat(16) } }],
  ])('refuses a document whose own %s differs from its statement', (_what, change) => {
    const doc = { ...genuine().doc, ...change } as ItemVersionDocument;
    expect(codeOf(() => verifyAnswer(asked, pinned, doc))).toBe('REGISTRY_ATTESTATION_MISMATCH');
  });

  it('refuses an attestation signed by another key (forged), before anything else', () => {
    const forger = makeKey();
    const forged = reattest(genuine().doc, forger.signer, {});
    expect(codeOf(() => verifyAnswer(asked, pinned, forged))).toBe('REGISTRY_ATTESTATION_INVALID');
  });

  it('refuses an attestation whose signature bytes were changed', () => {
    const doc = genuine().doc;
    const sig = doc.attestation.signature;
    const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
    const bad = { ...doc, attestation: { ...doc.attestation, signature: flipped } };
    expect(codeOf(() => verifyAnswer(asked, pinned, bad))).toBe('REGISTRY_ATTESTATION_INVALID');
  });

  it('refuses a statement that is not canonical JSON even when signed', () => {
    const doc = genuine().doc;
    const spaced = doc.attestation.statement.replace('{', '{ ');
    const signature = encodeSignature(signBytes(registry.signer.privateKey, Buffer.from(spaced)));
    const tampered = { ...doc, attestation: { statement: spaced, signature } };
    expect(codeOf(() => verifyAnswer(asked, pinned, tampered))).toBe(
      'REGISTRY_ATTESTATION_INVALID',
    );
  });

  it('refuses a statement naming another registry fingerprint', () => {
    const doc = reattest(genuine().doc, registry.signer, { registry_fingerprint: 'a'.repeat(16) });
    expect(codeOf(() => verifyAnswer(asked, pinned, doc))).toBe('REGISTRY_ATTESTATION_INVALID');
  });

  it('refuses content swapped for another genuine item of the same author', () => {
    const other = itemAnswer({
      registry,
      author,
      itemType: 'tool',
      extension: '.py',
      text: PYTHON_TOOL('utils', 'import os; os.system("curl evil")'),
      namespace: 'alice',
      itemId: 'utils/greet',
      version: '1.0.0',
    });
    const doc = { ...genuine().doc, content: other.doc.content };
    expect(codeOf(() => verifyAnswer(asked, pinned, doc))).toBe('REGISTRY_CONTENT_INVALID');
  });

  it('refuses content edited after the registry signed it', () => {
    const doc = genuine().doc;
    const edited = { ...doc, content: doc.content.replace('print("hi")', 'print("pwned")') };
    expect(codeOf(() => verifyAnswer(asked, pinned, edited))).toBe('REGISTRY_CONTENT_INVALID');
  });

  it('refuses content without the registry provenance suffix', () => {
    const doc = genuine().doc;
    const plain = signText(doc.content, {
      itemType: 'tool',
      extension: '.py',
      signer: registry.signer,
    });
    expect(codeOf(() => verifyAnswer(asked, pinned, { ...doc, content: plain.text }))).toBe(
      'REGISTRY_CONTENT_INVALID',
    );
  });

  it('refuses an extension that is not an extension of the item type', () => {
    const doc = reattest({ ...genuine().doc, extension: '.exe' }, registry.signer, {
      extension: '.exe',
    });
    expect(codeOf(() => verifyAnswer(asked, pinned, doc))).toBe('REGISTRY_CONTENT_INVALID');
  });

  it('refuses a served author key with another fingerprint than attested', () => {
    const doc = genuine().doc;
    const swapped = { ...doc, author: { ...doc.author, public_key: makeKey().publicKeyPem } };
    expect(codeOf(() => verifyAnswer(asked, pinned, swapped))).toBe(
      'REGISTRY_ATTESTATION_MISMATCH',
    );
  });

  it('refuses an author signature that does not verify on the content', () => {
    const doc = genuine().doc;
    const fields = tryParseSignaturePayload(doc.author.signature);
    if (fields === undefined) throw new Error('fixture');
    const other = signText('x = 1\n', {
      itemType: 'tool',
      extension: '.py',
      signer: author.signer,
    });
    const forged = formatSignaturePayload({ ...fields, signature: other.fields.signature });
    expect(
      codeOf(() =>
        verifyAnswer(asked, pinned, { ...doc, author: { ...doc.author, signature: forged } }),
      ),
    ).toBe('REGISTRY_CONTENT_INVALID');
  });

  it('refuses an author signature that is not a payload, or names another hash', () => {
    const doc = genuine().doc;
    const garbage = { ...doc, author: { ...doc.author, signature: 'rye:signed:nope' } };
    expect(codeOf(() => verifyAnswer(asked, pinned, garbage))).toBe('REGISTRY_CONTENT_INVALID');
    const fields = tryParseSignaturePayload(doc.author.signature);
    if (fields === undefined) throw new Error('fixture');
    const otherHash = formatSignaturePayload({ ...fields, contentHash: 'b'.repeat(64) });
    expect(
      codeOf(() =>
        verifyAnswer(asked, pinned, { ...doc, author: { ...doc.author, signature: otherHash } }),
      ),
    ).toBe('REGISTRY_CONTENT_INVALID');
  });

  it('checks bundles the same way: manifest resealed with the author signature', () => {
    const { doc, authorManifest } = bundleAnswer({
      registry,
      author,
      namespace: 'alice',
      bundleId: 'apps/demo',
      version: '1.0.0',
      files: { '.ai/knowledge/apps/demo/a.md': 'a\n' },
    });
    const verified = verifyAnswer(
      { kind: 'bundle', itemType: null, namespace: 'alice', itemId: 'apps/demo', version: null },
      pinned,
      doc,
    );
    expect(verified.text).toBe(authorManifest);
    expect(
      codeOf(() =>
        verifyAnswer(
          {
            kind: 'bundle',
            itemType: null,
            namespace: 'alice',
            itemId: 'apps/other',
            version: null,
          },
          pinned,
          doc,
        ),
      ),
    ).toBe('REGISTRY_ATTESTATION_MISMATCH');
  });
});

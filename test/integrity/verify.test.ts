import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SIGNATURE_FORMATS,
  mergeSignatureFormats,
  signText,
  trustSetOf,
  verifyFile,
  verifyFileSync,
  verifyText,
  verifyTextAsync,
  withPendingKeys,
  type TrustSet,
} from '../../src/integrity/index.js';
import { makeSigner } from '../helpers/keys.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

const ada = makeSigner('ada');
const tool = (text: string, signer = ada.signer): string =>
  signText(text, { itemType: 'tool', extension: '.py', signer }).text;

/** A trust set holding the key of `signer` under another owner name (and maybe a scope). */
function trustAs(owner: string, base: TrustSet, scopes?: { ids: string[] }[]): TrustSet {
  const [key] = [...base.values()];
  if (key === undefined) throw new Error('empty trust set');
  return trustSetOf([
    {
      ...key,
      owner,
      ...(scopes ? { scopes: scopes.map((s) => ({ ids: s.ids, itemTypes: null })) } : {}),
    },
  ]);
}

describe('verifyText() messages and verdicts', () => {
  it('names the signer, or says the key is unnamed', () => {
    const text = tool('print(1)\n');
    const named = verifyText(text, { itemType: 'tool', extension: '.py', trust: ada.trust });
    expect(named.message).toBe(`Verified tool text: signed by ada (${ada.signer.fingerprint})`);
    const unnamed = verifyText(text, {
      itemType: 'tool',
      extension: '.py',
      trust: trustAs('', ada.trust),
      path: 't.py',
    });
    expect([unnamed.ok, unnamed.signer, unnamed.message]).toEqual([
      true,
      '',
      `Verified t.py: signed by an unnamed key (${ada.signer.fingerprint})`,
    ]);
  });

  it('says which project holds a key the user has not approved, and what to run', () => {
    const mallory = makeSigner('mallory');
    const text = tool('print(1)\n', mallory.signer);
    const fingerprint = mallory.signer.fingerprint;
    for (const owner of ['mallory', '']) {
      const trust = withPendingKeys(trustSetOf([]), [{ fingerprint, owner, project: '/p' }]);
      const result = verifyText(text, { itemType: 'tool', extension: '.py', trust });
      const shown = owner === '' ? '' : ` (${owner})`;
      expect(result).toMatchObject({
        ok: false,
        verdict: 'untrusted_key',
        code: 'TRUST_PROJECT_UNAPPROVED',
      });
      expect(result.message).toBe(
        `Cannot verify tool text: signed by key ${fingerprint}${shown} from the trust store of project /p, which you have not approved; review /p/.ai/trusted_keys, then run \`rye trust approve --project /p\``,
      );
    }
  });

  it('names an unnamed key with a scope by its fingerprint alone', () => {
    const text = tool('print(1)\n');
    const trust = trustAs('', ada.trust, [{ ids: ['apps/*'] }]);
    const result = verifyText(text, {
      itemType: 'tool',
      extension: '.py',
      trust,
      subject: { itemType: 'tool', itemId: 'tools/x' },
    });
    expect(result.message).toBe(
      `Cannot verify tool text: signed by key ${ada.signer.fingerprint}, which is trusted only for ids apps/*, not tool tools/x`,
    );
  });

  it('calls a JSON signature value that does not parse malformed', () => {
    const result = verifyText('{"_signature":"rye:signed:garbage","a":1}', {
      itemType: 'tool',
      extension: '.json',
      trust: ada.trust,
    });
    expect(result).toMatchObject({
      verdict: 'malformed',
      code: 'INTEGRITY_MALFORMED_SIGNATURE',
      message: 'Cannot verify tool text: the "_signature" value is not a well-formed signature',
    });
  });

  it('gives bad_signature for a well-formed signature the key did not make, sync and async', async () => {
    const text = tool('print(1)\n');
    const [, sig = ''] = /:([A-Za-z0-9_-]{86}==):/.exec(text) ?? [];
    const forged = text.replace(sig, `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`);
    const options = { itemType: 'tool', extension: '.py', trust: ada.trust } as const;
    expect(verifyText(forged, options).verdict).toBe('bad_signature');
    expect((await verifyTextAsync(forged, options)).verdict).toBe('bad_signature');
    expect((await verifyTextAsync(text, options)).verdict).toBe('ok');
  });
});

describe('verifyFile() and verifyFileSync()', () => {
  const root = (): string => makeTempSpaces().root;

  it('verify a file with the format table and the subject they are given', async () => {
    const table = mergeSignatureFormats(DEFAULT_SIGNATURE_FORMATS, {
      tool: {
        extensions: { '.lua': { kind: 'comment', prefix: '--', suffix: '', placement: 'byte0' } },
      },
    });
    const path = join(root(), 'x.lua');
    writeFileSync(
      path,
      signText('print(1)\n', {
        itemType: 'tool',
        extension: '.lua',
        signer: ada.signer,
        formats: table,
      }).text,
    );
    expect((await verifyFile(path, 'tool', ada.trust)).code).toBe('ITEM_UNSUPPORTED_EXTENSION');
    expect((await verifyFile(path, 'tool', ada.trust, { formats: table })).verdict).toBe('ok');
    const scoped = trustAs('ada', ada.trust, [{ ids: ['tools/*'] }]);
    const inside = { formats: table, subject: { itemType: 'tool', itemId: 'tools/x' } } as const;
    expect(verifyFileSync(path, 'tool', scoped, inside).verdict).toBe('ok');
    const outside = { ...inside, subject: { itemType: 'tool', itemId: 'apps/x' } } as const;
    expect(verifyFileSync(path, 'tool', scoped, outside).verdict).toBe('untrusted_key');
    // Another extension than the file name's.
    const named = join(root(), 'x.txt');
    writeFileSync(named, tool('print(1)\n'));
    expect(verifyFileSync(named, 'tool', ada.trust, { extension: '.py' }).verdict).toBe('ok');
  });

  it('give the unreadable verdict, never unsigned, for a file that cannot be read as text', async () => {
    const dir = root();
    const folder = join(dir, 'folder.py');
    mkdirSync(folder);
    const binary = join(dir, 'bin.py');
    writeFileSync(binary, Buffer.from([0x70, 0, 0x71]));
    expect(await verifyFile(join(dir, 'missing.py'), 'tool', ada.trust)).toMatchObject({
      ok: false,
      verdict: 'unreadable',
      code: 'FILE_UNREADABLE',
      path: join(dir, 'missing.py'),
    });
    expect(verifyFileSync(folder, 'tool', ada.trust).code).toBe('FILE_UNREADABLE');
    expect(verifyFileSync(binary, 'tool', ada.trust)).toMatchObject({
      verdict: 'unreadable',
      code: 'FILE_BINARY',
    });
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  hasInlineSignature,
  hashFiles,
  itemTypeOfPath,
  readDigest,
} from '../../src/bundle/index.js';
import { signText } from '../../src/integrity/index.js';
import { makeSigner } from '../helpers/keys.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

const PY = '.ai/tools/apps/a/run.py';
const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

describe('hasInlineSignature()', () => {
  const { signer } = makeSigner();
  const signed = signText('print(1)\n', { itemType: 'tool', extension: '.py', signer }).text;
  const line = signed.slice(0, signed.indexOf('\n') + 1);

  it('is true for a signature line where the format puts it, also after a shebang', () => {
    expect(hasInlineSignature(PY, bytes(signed))).toBe(true);
    expect(hasInlineSignature(PY, bytes(`#!/usr/bin/env python3\n${line}print(1)\n`))).toBe(true);
    expect(hasInlineSignature(PY, bytes(signed.replace(/\n/g, '\r\n')))).toBe(true);
  });

  it('is true for a malformed signature line: it still claims to be signed', () => {
    expect(hasInlineSignature(PY, bytes('# rye:signed:garbage\nprint(1)\n'))).toBe(true);
  });

  it('is false without a line in place: unsigned, misplaced, a lone shebang, not an item', () => {
    expect(hasInlineSignature(PY, bytes('print(1)\n'))).toBe(false);
    expect(hasInlineSignature(PY, bytes(`print(1)\n${line}`))).toBe(false);
    expect(hasInlineSignature(PY, bytes('#!/usr/bin/env python3'))).toBe(false);
    expect(hasInlineSignature('webapp/run.py', bytes(signed))).toBe(false);
    expect(hasInlineSignature(PY, Buffer.from([0xff, 0xfe, 0]))).toBe(false);
  });
});

describe('hasInlineSignature() on JSON tools', () => {
  const { signer } = makeSigner();
  const JSON_TOOL = '.ai/tools/apps/a/config.json';

  it('is true for a _signature field, false without one or for JSON that does not parse', () => {
    const signed = signText('{"a":1}', { itemType: 'tool', extension: '.json', signer }).text;
    expect(hasInlineSignature(JSON_TOOL, bytes(signed))).toBe(true);
    expect(hasInlineSignature(JSON_TOOL, bytes('{"a":1}'))).toBe(false);
    expect(hasInlineSignature(JSON_TOOL, bytes('{"a":1,"a":2}'))).toBe(false);
  });
});

describe('itemTypeOfPath()', () => {
  it('is the type of a file with one of its extensions under its .ai folder, else undefined', () => {
    expect(itemTypeOfPath('.ai/tools/apps/a/run.PY')).toBe('tool');
    expect(itemTypeOfPath('.ai/knowledge/apps/a/notes.yaml')).toBe('knowledge');
    expect(itemTypeOfPath('.ai/directives/apps/a/notes.yaml')).toBeUndefined();
    expect(itemTypeOfPath('.ai/tools/apps/a/Makefile')).toBeUndefined();
    expect(itemTypeOfPath('.ai/tools/apps/a.d/Makefile')).toBeUndefined();
    expect(itemTypeOfPath('.ai/plans/a/plan.md')).toBeUndefined();
  });
});

describe('readDigest() and hashFiles()', () => {
  it('refuses a folder as not a regular file, and a missing file with its errno', async () => {
    const dir = makeTempSpaces().project;
    await expect(readDigest(dir)).rejects.toMatchObject({
      code: 'FILE_UNREADABLE',
      message: `Cannot read ${dir}: not a regular file`,
      details: { path: dir, errno: null },
    });
    await expect(
      hashFiles([{ path: 'gone', absolutePath: join(dir, 'gone') }]),
    ).rejects.toMatchObject({
      code: 'FILE_UNREADABLE',
      details: { errno: 'ENOENT' },
    });
  });

  it('keeps the bytes of inline-signed files only when asked', async () => {
    const t = makeTempSpaces();
    const { signer } = makeSigner();
    const signed = signText('print(1)\n', { itemType: 'tool', extension: '.py', signer }).text;
    const file = { path: PY, absolutePath: t.write(PY, signed) };
    const plain = { path: 'app/a.txt', absolutePath: t.write('app/a.txt', 'a') };
    const [kept, other] = await hashFiles([file, plain], undefined, { keepSignedBytes: true });
    expect(kept).toMatchObject({ inlineSigned: true, signedBytes: bytes(signed) });
    expect(other).toMatchObject({ inlineSigned: false, size: 1 });
    expect(other).not.toHaveProperty('signedBytes');
    const [notKept] = await hashFiles([file]);
    expect(notKept).not.toHaveProperty('signedBytes');
  });
});

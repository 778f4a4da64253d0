import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SIGNATURE_FORMATS,
  mergeSignatureFormats,
  runnableBytes,
  signText,
} from '../../src/integrity/index.js';
import { makeSigner } from '../helpers/keys.js';

const { signer } = makeSigner();
const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
const signed = (text: string, extension = '.py'): string =>
  signText(text, { itemType: 'tool', extension, signer }).text;

describe('runnableBytes()', () => {
  it('blanks the signature line of a comment-signed tool, keeping the line numbers', () => {
    const raw = bytes(signed('print(1)\nprint(2)\n'));
    expect(raw.toString()).toMatch(/^# rye:signed:/);
    expect(runnableBytes(raw, '.py').toString()).toBe('\nprint(1)\nprint(2)\n');
  });

  it('blanks the unhashed shebang line too, and normalises CRLF as it was hashed', () => {
    const raw = bytes(signed('#!/usr/bin/env python3 # -*- coding: latin-1 -*-\r\nprint(1)\r\n'));
    expect(runnableBytes(raw, '.py').toString()).toBe('\n\nprint(1)\n');
  });

  it('gives the raw bytes of an unsigned tool, a JSON tool and an unsupported extension', () => {
    const unsigned = bytes('print(1)\r\n');
    expect(runnableBytes(unsigned, '.py')).toBe(unsigned);
    const json = bytes(signed('{"a":1}', '.json'));
    expect(runnableBytes(json, '.json')).toBe(json);
    const other = bytes('anything');
    expect(runnableBytes(other, '.exe')).toBe(other);
  });

  it('gives the raw bytes of a file with a NUL byte or invalid UTF-8, which verify refuses', () => {
    const nul = Buffer.concat([bytes(signed('print(1)\n')), Buffer.from([0])]);
    expect(runnableBytes(nul, '.py')).toBe(nul);
    const latin1 = Buffer.concat([bytes(signed('print(1)\n')), Buffer.from([0xe9])]);
    expect(runnableBytes(latin1, '.py')).toBe(latin1);
  });

  it('reads the signature position from the table it is given', () => {
    const table = mergeSignatureFormats(DEFAULT_SIGNATURE_FORMATS, {
      tool: {
        extensions: { '.lua': { kind: 'comment', prefix: '--', suffix: '', placement: 'byte0' } },
      },
    });
    const raw = bytes(
      signText('print(1)\n', { itemType: 'tool', extension: '.lua', signer, formats: table }).text,
    );
    expect(runnableBytes(raw, '.lua', table).toString()).toBe('\nprint(1)\n');
    expect(runnableBytes(raw, '.lua')).toBe(raw);
  });
});

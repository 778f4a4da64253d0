import { describe, expect, it } from 'vitest';
import {
  findSignatureLine,
  locateCommentSignature,
  signText,
  type SignatureFormat,
} from '../../src/integrity/index.js';
import { makeSigner } from '../helpers/keys.js';

const { signer } = makeSigner();
type CommentFormat = Extract<SignatureFormat, { kind: 'comment' }>;
const HASH: CommentFormat = {
  kind: 'comment',
  prefix: '#',
  suffix: '',
  placement: 'after-shebang',
};
const HTML: CommentFormat = { kind: 'comment', prefix: '<!--', suffix: '-->', placement: 'byte0' };

/** A well-formed `# rye:signed:…` line (signed over other text: only its form matters here). */
const line =
  signText('x\n', { itemType: 'tool', extension: '.py', signer }).text.split('\n')[0] ?? '';

describe('locateCommentSignature()', () => {
  it('finds a signature line that ends the text without a newline', () => {
    const located = locateCommentSignature(line, HASH);
    expect(located).toMatchObject({ status: 'signed', body: '', duplicateLine: null });
  });

  it('reads a shebang alone, without a newline, as unsigned', () => {
    expect(locateCommentSignature('#!/bin/sh', HASH)).toEqual({
      status: 'unsigned',
      misplacedLine: null,
    });
  });

  it('reads a line with the marker but no closer as malformed, and keeps it out of the body', () => {
    const located = locateCommentSignature('<!-- rye:signed:x\nbody\n', HTML);
    expect(located).toEqual({ status: 'malformed', line: 1, body: 'body\n' });
  });

  it('points at a well-formed line out of place, and at a second one', () => {
    const misplaced = locateCommentSignature(`print(1)\n${line}`, HASH);
    expect(misplaced).toEqual({ status: 'unsigned', misplacedLine: 2 });
    const twice = locateCommentSignature(`${line}\nprint(1)\n  ${line}\n`, HASH);
    expect(twice).toMatchObject({ status: 'signed', duplicateLine: 3 });
  });
});

describe('findSignatureLine()', () => {
  it('counts only whole lines: a marker after code or a placeholder is no signature line', () => {
    expect(findSignatureLine(`x = 1 ${line}\n`, HASH, -1)).toBeNull();
    expect(findSignatureLine('# rye:signed:TIMESTAMP:HASH:SIG:FP\n', HASH, -1)).toBeNull();
    expect(findSignatureLine(`x = 1 ${line}\n${line}`, HASH, -1)).toBe(2);
    expect(findSignatureLine(`${line}\n${line}\n`, HASH, 1)).toBe(2);
  });
});

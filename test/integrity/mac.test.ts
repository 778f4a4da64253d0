import { createHmac, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derivedMacKey, macHex, macMatches } from '../../src/integrity/index.js';

const { privateKey } = generateKeyPairSync('ed25519');

describe('derived MAC keys', () => {
  it('derive the same key again from the same private key, and another for another purpose or subject', () => {
    const key = derivedMacKey(privateKey, 'transcript', 'thread-1');
    const again = derivedMacKey(privateKey, 'transcript', 'thread-1');
    expect(again.export()).toEqual(key.export());
    expect(key.export()).toHaveLength(32);
    expect(derivedMacKey(privateKey, 'transcript', 'thread-2').export()).not.toEqual(key.export());
    expect(derivedMacKey(privateKey, 'other', 'thread-1').export()).not.toEqual(key.export());
    const other = generateKeyPairSync('ed25519').privateKey;
    expect(derivedMacKey(other, 'transcript', 'thread-1').export()).not.toEqual(key.export());
  });
});

describe('macHex() and macMatches()', () => {
  const key = derivedMacKey(privateKey, 'test', 'subject');

  it('macHex() is HMAC-SHA256 over the parts as one message', () => {
    const whole = createHmac('sha256', key).update('ab').update(Buffer.from('c')).digest('hex');
    expect(macHex(key, 'a', 'b', Buffer.from('c'))).toBe(whole);
  });

  it('accepts the whole tag or a prefix of at least 128 bits, and nothing else', () => {
    const tag = macHex(key, 'line');
    expect(macMatches(key, tag, 'line')).toBe(true);
    expect(macMatches(key, tag.slice(0, 32), 'line')).toBe(true);
    expect(macMatches(key, tag.slice(0, 30), 'line')).toBe(false); // under 128 bits
    expect(macMatches(key, `${tag}00`, 'line')).toBe(false); // longer than the MAC
    expect(macMatches(key, `${tag.slice(0, 32)}zz`, 'line')).toBe(false); // not all hex
    expect(macMatches(key, `${tag.slice(0, 31)}`, 'line')).toBe(false); // odd length
    expect(macMatches(key, tag, 'other line')).toBe(false);
    const flipped = (tag[0] === '0' ? '1' : '0') + tag.slice(1);
    expect(macMatches(key, flipped, 'line')).toBe(false);
  });
});

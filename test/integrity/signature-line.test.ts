import { describe, expect, it } from 'vitest';
import {
  decodeSignature,
  emptyResult,
  encodeSignature,
  formatSignaturePayload,
  formatTimestamp,
  tryParseSignaturePayload,
  verdictReason,
} from '../../src/integrity/index.js';

const SIG = 'A'.repeat(86);
const PAYLOAD = `rye:signed:2026-02-11T00:00:00Z:${'a'.repeat(64)}:${SIG}==:0123456789abcdef`;

describe('the signature payload', () => {
  it('parses the four fields and an optional provenance, and formats them back', () => {
    const fields = tryParseSignaturePayload(PAYLOAD);
    expect(fields).toEqual({
      timestamp: '2026-02-11T00:00:00Z',
      contentHash: 'a'.repeat(64),
      signature: `${SIG}==`,
      fingerprint: '0123456789abcdef',
      provenance: null,
    });
    const attested = tryParseSignaturePayload(`${PAYLOAD}|rye-registry@alice`);
    expect(attested?.provenance).toBe('rye-registry@alice');
    expect(attested && formatSignaturePayload(attested)).toBe(`${PAYLOAD}|rye-registry@alice`);
  });

  it.each([
    PAYLOAD.replace('2026-02-11T00:00:00Z', '2026-02-11'),
    PAYLOAD.replace('a'.repeat(64), 'A'.repeat(64)),
    PAYLOAD.replace(`${SIG}==`, SIG.slice(1)),
    PAYLOAD.replace('0123456789abcdef', '0123'),
    `${PAYLOAD}|no-at-sign`,
    ` ${PAYLOAD}`,
  ])('refuses a malformed payload: %s', (payload) => {
    expect(tryParseSignaturePayload(payload)).toBeUndefined();
  });

  it('decodes a signature with or without padding to 64 bytes, and nothing else', () => {
    const bytes = Buffer.alloc(64, 7);
    const encoded = encodeSignature(bytes);
    expect(encoded).toMatch(/==$/);
    expect(decodeSignature(encoded)).toEqual(bytes);
    expect(decodeSignature(encoded.replace(/=+$/, ''))).toEqual(bytes);
    expect(decodeSignature(encodeSignature(Buffer.alloc(63)))).toBeUndefined();
    expect(decodeSignature('')).toBeUndefined();
  });

  it('formats timestamps to the second, in UTC', () => {
    expect(formatTimestamp(new Date(Date.UTC(2026, 1, 11, 1, 2, 3, 456)))).toBe(
      '2026-02-11T01:02:03Z',
    );
  });
});

describe('verdictReason()', () => {
  it('strips the "Cannot verify <path or item type>: " opening, and keeps any other message', () => {
    const base = emptyResult('tool', '/p/t.py');
    expect(verdictReason({ ...base, message: 'Cannot verify /p/t.py: it is unsigned' })).toBe(
      'it is unsigned',
    );
    const text = emptyResult('knowledge', null);
    expect(verdictReason({ ...text, message: 'Cannot verify knowledge text: bad' })).toBe('bad');
    expect(verdictReason({ ...base, message: 'Cannot read /p/t.py: gone' })).toBe(
      'Cannot read /p/t.py: gone',
    );
  });
});

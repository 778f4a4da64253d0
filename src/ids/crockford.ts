/** Crockford's base32 alphabet, lowercase: no i, l, o or u. */
export const CROCKFORD_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * `value` (a non-negative safe integer below 32^length) as exactly `length`
 * Crockford base32 digits, most significant first. Pure.
 */
export function encodeCrockfordInteger(value: number, length: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < length; i += 1) {
    out = CROCKFORD_ALPHABET.charAt(rest % 32) + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/** The first `length` × 5 bits of `bytes` as `length` Crockford digits. Pure. */
export function encodeCrockfordBits(bytes: Uint8Array, length: number): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  let index = 0;
  while (out.length < length) {
    if (bits < 5) {
      buffer = ((buffer << 8) | (bytes[index] ?? 0)) & 0xffff;
      index += 1;
      bits += 8;
    }
    out += CROCKFORD_ALPHABET.charAt((buffer >> (bits - 5)) & 31);
    bits -= 5;
  }
  return out;
}

/** The integer `digits` spell (lowercase Crockford only). Pure; NaN on a foreign digit. */
export function decodeCrockfordInteger(digits: string): number {
  let value = 0;
  for (const digit of digits) {
    const index = CROCKFORD_ALPHABET.indexOf(digit);
    if (index < 0) return Number.NaN;
    value = value * 32 + index;
  }
  return value;
}

import { badResponse } from './http.js';
import { isObject } from './user-files.js';

/**
 * Strict readers for registry answers (UNTRUSTED input): each returns the field
 * with the exact type and form the protocol defines, or throws
 * REGISTRY_BAD_RESPONSE naming the field. Unknown extra fields are ignored.
 */
export class Shape {
  readonly #url: string;
  readonly #doc: string;

  constructor(url: string, doc: string) {
    this.#url = url;
    this.#doc = doc;
  }

  fail(at: string, why: string): never {
    throw badResponse(this.#url, `${this.#doc} field ${at} ${why}`);
  }

  object(value: unknown, at: string): Record<string, unknown> {
    if (!isObject(value)) this.fail(at, 'is not an object');
    return value;
  }

  string(
    o: Record<string, unknown>,
    key: string,
    at: string,
    check: (s: string) => boolean = () => true,
    maxBytes = 4096,
  ): string {
    const value = Object.hasOwn(o, key) ? o[key] : undefined;
    if (typeof value !== 'string') this.fail(`${at}${key}`, 'is missing or not a string');
    if (value.length > maxBytes || Buffer.byteLength(value, 'utf8') > maxBytes)
      this.fail(`${at}${key}`, `is longer than ${maxBytes} bytes`);
    if (!check(value)) this.fail(`${at}${key}`, 'is malformed');
    return value;
  }

  nullableString(
    o: Record<string, unknown>,
    key: string,
    at: string,
    maxBytes = 4096,
  ): string | null {
    if (Object.hasOwn(o, key) && o[key] === null) return null;
    return this.string(o, key, at, () => true, maxBytes);
  }

  boolean(o: Record<string, unknown>, key: string, at: string): boolean {
    const value = Object.hasOwn(o, key) ? o[key] : undefined;
    if (typeof value !== 'boolean') this.fail(`${at}${key}`, 'is missing or not a boolean');
    return value;
  }

  count(o: Record<string, unknown>, key: string, at: string): number {
    const value = Object.hasOwn(o, key) ? o[key] : undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
      this.fail(`${at}${key}`, 'is missing or not a non-negative integer');
    return value;
  }

  array(o: Record<string, unknown>, key: string, at: string, max: number): unknown[] {
    const value = Object.hasOwn(o, key) ? o[key] : undefined;
    if (!Array.isArray(value)) this.fail(`${at}${key}`, 'is missing or not an array');
    if (value.length > max) this.fail(`${at}${key}`, `has more than ${max} entries`);
    return value;
  }

  literal<T extends string | number>(
    o: Record<string, unknown>,
    key: string,
    at: string,
    allowed: readonly T[],
  ): T {
    const value = Object.hasOwn(o, key) ? o[key] : undefined;
    if (!(allowed as readonly unknown[]).includes(value))
      this.fail(`${at}${key}`, `is not one of ${allowed.join(', ')}`);
    return value as T;
  }
}

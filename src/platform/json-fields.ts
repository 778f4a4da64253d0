/**
 * Reading the fields of UNTRUSTED JSON-shaped values: parsed JSON, YAML (maps
 * read as `Map`s or as objects) and literal metadata. Lockfiles, bundle
 * manifests, registry answers and executor configs all check their fields
 * through {@link FieldReader}.
 *
 * The reader checks; its caller words. Every problem goes to the caller's
 * {@link FieldSink} as a {@link FieldProblem} at a dotted field path
 * (`root.tool_id`, `files[3].sha256`), and the caller turns it into its own
 * message under its own error code: it collects them and fails once, or
 * throws on the first. A read that found a problem returns `undefined`.
 *
 * Fields are read as own properties only (`constructor` or `__proto__` are
 * never inherited values), and a `Map` is read by key, so no key is coerced.
 */

/** A JSON object as parsed: a plain or null-prototype object, never an array. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** What fields are read from: a JSON object, or a YAML map read with `mapAsMap`. */
export type FieldSource = JsonObject | ReadonlyMap<unknown, unknown>;

/**
 * True for a plain or null-prototype object: what JSON and YAML parsers build
 * for a mapping. Arrays, `Map`s and class instances (a `Date`) are not.
 */
export function isJsonObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The value of field `key`: an own property of an object, or a map's entry; else undefined. */
export function fieldOf(source: FieldSource, key: string): unknown {
  if (source instanceof Map) return source.get(key);
  return Object.hasOwn(source, key) ? (source as JsonObject)[key] : undefined;
}

/** `at.key`, `at[3]`, or `key` alone at the top level (`at` = ''). */
export function fieldPath(at: string, key: string | number): string {
  if (typeof key === 'number') return `${at}[${key}]`;
  return at === '' ? key : `${at}.${key}`;
}

/** The JSON kind of a value, for messages: `null`, `array`, `object`, `string`, `number`… */
export function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** What a read wanted. */
export type FieldType = 'object' | 'map' | 'string' | 'boolean' | 'count' | 'number' | 'array';

/**
 * One problem with one field. `label`, when the caller gave one, names what it
 * wanted in its own words (`'{sha256, inline_signed}'`, `'64 lowercase hex characters'`).
 */
export type FieldProblem =
  | { readonly kind: 'missing'; readonly expected: FieldType; readonly label?: string }
  | {
      readonly kind: 'type';
      readonly expected: FieldType;
      readonly actual: unknown;
      readonly label?: string;
    }
  /** A string the rule wants non-empty (or free of NUL) was not. */
  | { readonly kind: 'empty'; readonly actual: string; readonly label?: string }
  | { readonly kind: 'too_long'; readonly maxBytes: number }
  | { readonly kind: 'too_many'; readonly max: number; readonly actual: number }
  | { readonly kind: 'not_one_of'; readonly allowed: readonly unknown[]; readonly actual: unknown }
  /** The caller's check refused the value; `why` is its reason. */
  | { readonly kind: 'invalid'; readonly why: string; readonly actual: unknown }
  | { readonly kind: 'unknown_key'; readonly known: readonly string[] };

/** Where problems go: collected, or thrown as the caller's error. */
export type FieldSink = (field: string, problem: FieldProblem) => void;

/**
 * What an absent field means. `required`: undefined is missing, null a wrong
 * type. `nullable`: null is a value (returned as null), undefined is missing.
 * `optional`: undefined gives the fallback, null is a wrong type. `nullish`:
 * undefined and null give the fallback.
 */
export type Absence = 'required' | 'nullable' | 'optional' | 'nullish';

export interface StringRule {
  /** Default `required`; `optional` and `nullish` return null when absent. */
  readonly absent?: Absence;
  /** Refuse '' as {@link FieldProblem} `empty`. */
  readonly nonEmpty?: boolean;
  /** Refuse a value holding a NUL character as `empty` too. */
  readonly noNul?: boolean;
  /** Refuse a longer value (UTF-8 bytes) as `too_long`, before the check runs. */
  readonly maxBytes?: number;
  /** The reason the value is refused, or undefined to accept it. */
  readonly check?: (value: string) => string | undefined;
  readonly label?: string;
}

export interface ListRule<T> {
  /** Default `required`; `optional` and `nullish` return the fallback when absent. */
  readonly absent?: Absence;
  readonly fallback?: T;
  readonly label?: string;
}

/** Typed reads of untrusted fields; problems go to the sink (see the module comment). */
export class FieldReader {
  readonly #sink: FieldSink;

  constructor(sink: FieldSink) {
    this.#sink = sink;
  }

  /** Report a problem the caller found itself (a cross-field rule, a shape of its own). */
  report(field: string, problem: FieldProblem): void {
    this.#sink(field, problem);
  }

  /** `value` itself as a JSON object, or undefined after a `type` problem at `field`. */
  object(value: unknown, field: string, label?: string): JsonObject | undefined {
    if (isJsonObject(value)) return value;
    this.#sink(field, { kind: 'type', expected: 'object', actual: value, ...labelled(label) });
    return undefined;
  }

  /** `value` itself as a YAML map (`mapAsMap`), or undefined after a `type` problem. */
  map(value: unknown, field: string, label?: string): ReadonlyMap<unknown, unknown> | undefined {
    if (value instanceof Map) return value;
    this.#sink(field, { kind: 'type', expected: 'map', actual: value, ...labelled(label) });
    return undefined;
  }

  /**
   * Field `key` of `source` as a JSON object. An undefined `source` (already
   * reported) reads as undefined without a problem, as do all reads below.
   */
  objectField(
    source: FieldSource | undefined,
    key: string,
    at: string,
    label?: string,
  ): JsonObject | undefined {
    const value = this.#present(source, key, at, 'object', 'required', label);
    return value === ABSENT ? undefined : this.object(value, fieldPath(at, key), label);
  }

  /** Field `key` as a string under `rule`; null for an accepted absence or a nullable null. */
  string(
    source: FieldSource | undefined,
    key: string,
    at: string,
    rule: StringRule = {},
  ): string | null | undefined {
    const field = fieldPath(at, key);
    const value = this.#present(source, key, at, 'string', rule.absent ?? 'required', rule.label);
    if (value === ABSENT) return undefined;
    if (value === ACCEPTED_ABSENCE || (value === null && rule.absent === 'nullable')) return null;
    if (!this.#text(value, field, rule)) return undefined;
    const max = rule.maxBytes;
    if (max !== undefined && (value.length > max || Buffer.byteLength(value, 'utf8') > max)) {
      this.#sink(field, { kind: 'too_long', maxBytes: max });
      return undefined;
    }
    const why = rule.check?.(value);
    if (why !== undefined) {
      this.#sink(field, { kind: 'invalid', why, actual: value });
      return undefined;
    }
    return value;
  }

  /** Field `key` as a boolean; with `fallback`, an absent field (undefined) gives it. */
  boolean(
    source: FieldSource | undefined,
    key: string,
    at: string,
    rule: { readonly fallback?: boolean; readonly label?: string } = {},
  ): boolean | undefined {
    const absence = rule.fallback === undefined ? 'required' : 'optional';
    return this.#scalar(source, key, at, 'boolean', absence, isBoolean, rule.fallback, rule.label);
  }

  /** Field `key` as a non-negative safe integer. */
  count(source: FieldSource | undefined, key: string, at: string): number | undefined {
    return this.#scalar(source, key, at, 'count', 'required', isCount);
  }

  /** Field `key` as a finite number above 0; an absent field (undefined or null) gives `fallback`. */
  positive(
    source: FieldSource | undefined,
    key: string,
    at: string,
    fallback: number,
  ): number | undefined {
    return this.#scalar(source, key, at, 'number', 'nullish', isPositive, fallback);
  }

  /** Field `key` as an array of at most `max` entries (`too_many` past it). */
  array(
    source: FieldSource | undefined,
    key: string,
    at: string,
    rule: { readonly max?: number; readonly label?: string } = {},
  ): readonly unknown[] | undefined {
    const field = fieldPath(at, key);
    const value = this.#present(source, key, at, 'array', 'required', rule.label);
    if (value === ABSENT) return undefined;
    if (!Array.isArray(value)) {
      this.#sink(field, {
        kind: 'type',
        expected: 'array',
        actual: value,
        ...labelled(rule.label),
      });
      return undefined;
    }
    if (rule.max !== undefined && value.length > rule.max) {
      this.#sink(field, { kind: 'too_many', max: rule.max, actual: value.length });
      return undefined;
    }
    return value;
  }

  /**
   * Field `key` as one of `allowed` (compared with `===`); with `fallback`, an
   * absent field (undefined) gives it. A missing field without a fallback is
   * `not_one_of` too: absent is not an allowed value.
   */
  oneOf<T>(
    source: FieldSource | undefined,
    key: string,
    at: string,
    allowed: readonly T[],
    fallback?: T,
  ): T | undefined {
    if (source === undefined) return undefined;
    const value = fieldOf(source, key);
    if (value === undefined && fallback !== undefined) return fallback;
    if ((allowed as readonly unknown[]).includes(value)) return value as T;
    this.#sink(fieldPath(at, key), { kind: 'not_one_of', allowed, actual: value });
    return undefined;
  }

  /**
   * Field `key` as a list of strings, each entry checked for `nonEmpty` and
   * `noNul` (problems at `key[i]`, without the label; the good entries are
   * kept). An absent field gives `rule.fallback` under `optional` or `nullish`.
   */
  strings(
    source: FieldSource | undefined,
    key: string,
    at: string,
    rule: ListRule<readonly string[]> & {
      readonly nonEmpty?: boolean;
      readonly noNul?: boolean;
    } = {},
  ): readonly string[] | undefined {
    const field = fieldPath(at, key);
    const value = this.#present(source, key, at, 'array', rule.absent ?? 'required', rule.label);
    if (value === ABSENT) return undefined;
    if (value === ACCEPTED_ABSENCE) return rule.fallback;
    if (!Array.isArray(value)) {
      this.#sink(field, {
        kind: 'type',
        expected: 'array',
        actual: value,
        ...labelled(rule.label),
      });
      return undefined;
    }
    const entry = { nonEmpty: rule.nonEmpty === true, noNul: rule.noNul === true };
    return value.filter((item: unknown, i): item is string =>
      this.#text(item, `${field}[${i}]`, entry),
    );
  }

  /** An `unknown_key` problem for each key of `source` not in `known`, in the source's order. */
  knownKeys(source: FieldSource | undefined, at: string, known: readonly string[]): void {
    if (source === undefined) return;
    for (const key of source instanceof Map ? source.keys() : Object.keys(source)) {
      if (!known.includes(key as string)) {
        this.#sink(fieldPath(at, String(key)), { kind: 'unknown_key', known });
      }
    }
  }

  /** A field accepted by `ok`, the fallback for an accepted absence, else a `type` problem. */
  #scalar<T>(
    source: FieldSource | undefined,
    key: string,
    at: string,
    expected: FieldType,
    absence: Absence,
    ok: (value: unknown) => value is T,
    fallback?: T,
    label?: string,
  ): T | undefined {
    const value = this.#present(source, key, at, expected, absence, label);
    if (value === ABSENT) return undefined;
    if (value === ACCEPTED_ABSENCE) return fallback;
    if (ok(value)) return value;
    this.#sink(fieldPath(at, key), { kind: 'type', expected, actual: value, ...labelled(label) });
    return undefined;
  }

  /** A string passing `nonEmpty` and `noNul`; else false after a `type` or `empty` problem. */
  #text(
    value: unknown,
    field: string,
    rule: { readonly nonEmpty?: boolean; readonly noNul?: boolean; readonly label?: string },
  ): value is string {
    if (typeof value !== 'string') {
      this.#sink(field, {
        kind: 'type',
        expected: 'string',
        actual: value,
        ...labelled(rule.label),
      });
      return false;
    }
    if ((rule.nonEmpty === true && value === '') || (rule.noNul === true && value.includes('\0'))) {
      this.#sink(field, { kind: 'empty', actual: value, ...labelled(rule.label) });
      return false;
    }
    return true;
  }

  /**
   * The field's value, ACCEPTED_ABSENCE for an absence the policy accepts, or
   * ABSENT when there is nothing to read (no source, or a missing field, reported).
   */
  #present(
    source: FieldSource | undefined,
    key: string,
    at: string,
    expected: FieldType,
    absence: Absence,
    label?: string,
  ): unknown {
    if (source === undefined) return ABSENT;
    const value = fieldOf(source, key);
    if (value === undefined) {
      if (absence === 'optional' || absence === 'nullish') return ACCEPTED_ABSENCE;
      this.#sink(fieldPath(at, key), { kind: 'missing', expected, ...labelled(label) });
      return ABSENT;
    }
    if (value === null && absence === 'nullish') return ACCEPTED_ABSENCE;
    return value;
  }
}

const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isPositive = (v: unknown): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v > 0;

const ABSENT = Symbol('absent');
const ACCEPTED_ABSENCE = Symbol('accepted absence');

function labelled(label: string | undefined): { label?: string } {
  return label === undefined ? {} : { label };
}

import {
  FieldReader,
  type FieldProblem,
  type FieldSource,
  type JsonObject,
} from '../../platform/index.js';
import { badResponse } from './http.js';

/**
 * Strict readers for registry answers (UNTRUSTED input): each returns the field
 * with the exact type and form the protocol defines, or throws
 * REGISTRY_BAD_RESPONSE naming the first bad field. Unknown extra fields are
 * ignored. The checks are platform's FieldReader; this class words them.
 *
 * `at` is the path of the object a field is read from, with a trailing dot
 * (`''`, `'author.'`, `'files[3].'`).
 */
export class Shape {
  readonly #url: string;
  readonly #doc: string;
  readonly #read: FieldReader;

  constructor(url: string, doc: string) {
    this.#url = url;
    this.#doc = doc;
    this.#read = new FieldReader((field, problem) => this.fail(field, wording(problem)));
  }

  fail(at: string, why: string): never {
    throw badResponse(this.#url, `${this.#doc} field ${at} ${why}`);
  }

  object(value: unknown, at: string): JsonObject {
    return this.#read.object(value, at) as JsonObject;
  }

  /** Field `key` of `o` as an object (an inherited property is no field). */
  objectField(o: FieldSource, key: string, at: string): JsonObject {
    return this.#read.objectField(o, key, parent(at)) as JsonObject;
  }

  string(
    o: FieldSource,
    key: string,
    at: string,
    check: (s: string) => boolean = () => true,
    maxBytes = 4096,
  ): string {
    return this.#read.string(o, key, parent(at), {
      maxBytes,
      check: (s) => (check(s) ? undefined : 'is malformed'),
    }) as string;
  }

  nullableString(o: FieldSource, key: string, at: string, maxBytes = 4096): string | null {
    return this.#read.string(o, key, parent(at), { absent: 'nullable', maxBytes }) as string | null;
  }

  boolean(o: FieldSource, key: string, at: string): boolean {
    return this.#read.boolean(o, key, parent(at)) as boolean;
  }

  count(o: FieldSource, key: string, at: string): number {
    return this.#read.count(o, key, parent(at)) as number;
  }

  array(o: FieldSource, key: string, at: string, max: number): unknown[] {
    return [...(this.#read.array(o, key, parent(at), { max }) as readonly unknown[])];
  }

  literal<T extends string | number>(
    o: FieldSource,
    key: string,
    at: string,
    allowed: readonly T[],
  ): T {
    return this.#read.oneOf(o, key, parent(at), allowed) as T;
  }
}

/** `'files[3].'` → `'files[3]'`: FieldReader joins the field name itself. */
function parent(at: string): string {
  return at.endsWith('.') ? at.slice(0, -1) : at;
}

const WANTED: Readonly<Record<string, string>> = {
  string: 'a string',
  boolean: 'a boolean',
  count: 'a non-negative integer',
  array: 'an array',
};

function wording(problem: FieldProblem): string {
  switch (problem.kind) {
    case 'missing':
    case 'type':
      return problem.expected === 'object'
        ? 'is not an object'
        : `is missing or not ${WANTED[problem.expected] ?? problem.expected}`;
    case 'too_long':
      return `is longer than ${problem.maxBytes} bytes`;
    case 'too_many':
      return `has more than ${problem.max} entries`;
    case 'not_one_of':
      return `is not one of ${problem.allowed.join(', ')}`;
    case 'invalid':
      return problem.why;
    default:
      return 'is malformed';
  }
}

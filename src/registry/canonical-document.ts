/**
 * The one way a signed registry document (an attestation statement, a package
 * index) is read back: exactly the known fields, each well-formed, and
 * canonical text, so two parsers can never read one signed document
 * differently. Pure.
 */

/**
 * Parse `text` as the document `format` writes; `why` explains each refusal
 * (the caller wraps it in its own error code).
 *
 * @throws whatever `refuse` returns, for the first problem found
 */
export function parseCanonicalDocument<T>(
  text: string,
  spec: {
    readonly keys: readonly string[];
    readonly fieldProblem: (o: Record<string, unknown>) => string | undefined;
    readonly format: (document: T) => string;
    readonly refuse: (why: string) => Error;
  },
): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw spec.refuse('it is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw spec.refuse('it is not an object');
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  const expected = [...spec.keys].sort();
  if (keys.join(',') !== expected.join(',')) throw spec.refuse(`its fields are ${keys.join(', ')}`);
  const bad = spec.fieldProblem(o);
  if (bad !== undefined) throw spec.refuse(bad);
  const document = o as unknown as T;
  if (spec.format(document) !== text) throw spec.refuse('it is not in canonical form');
  return document;
}

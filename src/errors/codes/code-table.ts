/** A code's class; it fixes the CLI exit code (see `exitCodeFor`). */
export type ErrorClass = 'usage' | 'failure' | 'integrity';

/** What a code means to the CLI: its class and a one-line hint for humans. */
export interface CodeInfo {
  readonly class: ErrorClass;
  readonly hint: string;
}

/** The codes of one domain. */
export type CodeTable = Readonly<Record<string, CodeInfo>>;

type KeysOf<T> = T extends unknown ? keyof T : never;

/** The codes that more than one of `Tables` defines; `never` when each code is in one table. */
export type SharedCodes<Tables extends readonly CodeTable[]> = Tables extends readonly [
  infer First,
  ...infer Rest extends readonly CodeTable[],
]
  ? (keyof First & KeysOf<Rest[number]>) | SharedCodes<Rest>
  : never;

type Intersection<Tables extends readonly CodeTable[]> = Tables extends readonly [
  infer First,
  ...infer Rest extends readonly CodeTable[],
]
  ? First & Intersection<Rest>
  : unknown;

/** The one table holding every code of `Tables`. */
export type MergedCodes<Tables extends readonly CodeTable[]> = {
  readonly [Code in keyof Intersection<Tables>]: Intersection<Tables>[Code];
};

/**
 * A shared code is a compile error naming it: object spread would let the later
 * table win silently, and `mergeCodeTables` throws at module load.
 */
type EachCodeOnce<Tables extends readonly CodeTable[]> = [SharedCodes<Tables>] extends [never]
  ? unknown
  : { readonly [Code in SharedCodes<Tables> as `${Code} is in two tables`]: never };

/**
 * Merge the domain tables into one, in table order. Guarantees that each code
 * is in exactly one table: throws (at module load, so every run and test
 * fails) on a code that two tables define.
 */
export function mergeCodeTables<const Tables extends readonly CodeTable[]>(
  tables: Tables & EachCodeOnce<Tables>,
): MergedCodes<Tables> {
  const merged: Record<string, CodeInfo> = {};
  for (const table of tables) {
    for (const [code, info] of Object.entries(table)) {
      if (Object.hasOwn(merged, code)) {
        throw new Error(`Cannot merge the error-code tables: ${code} is in two of them`);
      }
      merged[code] = info;
    }
  }
  return merged as MergedCodes<Tables>;
}

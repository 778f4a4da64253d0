/**
 * Where a signature goes in each kind of file. The comment syntax is data — a
 * table keyed by item type and extension — so a new file kind is a new row,
 * not a new branch; callers may pass a table merged with their own rows.
 */

/** The three item types. Defined here because the signature table is keyed by them. */
export const ITEM_TYPES = ['directive', 'tool', 'knowledge'] as const;
export type ItemType = (typeof ITEM_TYPES)[number];

export type SignatureFormat =
  | {
      readonly kind: 'comment';
      /** Comment opener, e.g. `#`, `//`, `<!--`. */
      readonly prefix: string;
      /** Comment closer, e.g. `-->`, or '' for line comments. */
      readonly suffix: string;
      /** `byte0`: the very first line. `after-shebang`: line 2 when line 1 is a `#!` shebang. */
      readonly placement: 'byte0' | 'after-shebang';
    }
  | {
      readonly kind: 'json-field';
      /** Top-level field holding the payload. */
      readonly field: string;
    };

export interface SignatureFormatRows {
  /** Format for any extension not listed in `extensions`; undefined = unsupported. */
  readonly fallback?: SignatureFormat;
  readonly extensions: Readonly<Record<string, SignatureFormat>>;
}

export type SignatureFormatTable = Readonly<Record<ItemType, SignatureFormatRows>>;

const HASH_COMMENT: SignatureFormat = {
  kind: 'comment',
  prefix: '#',
  suffix: '',
  placement: 'after-shebang',
};
const SLASH_COMMENT: SignatureFormat = {
  kind: 'comment',
  prefix: '//',
  suffix: '',
  placement: 'byte0',
};
const HTML_COMMENT: SignatureFormat = {
  kind: 'comment',
  prefix: '<!--',
  suffix: '-->',
  placement: 'byte0',
};
const JSON_FIELD: SignatureFormat = { kind: 'json-field', field: '_signature' };

/** The default table (ARCHITECTURE.md, "Where it goes"). */
export const DEFAULT_SIGNATURE_FORMATS: SignatureFormatTable = {
  directive: { fallback: HTML_COMMENT, extensions: {} },
  knowledge: { fallback: HTML_COMMENT, extensions: {} },
  tool: {
    extensions: {
      '.py': HASH_COMMENT,
      '.yaml': HASH_COMMENT,
      '.yml': HASH_COMMENT,
      '.sh': HASH_COMMENT,
      '.bash': HASH_COMMENT,
      '.toml': HASH_COMMENT,
      '.js': SLASH_COMMENT,
      '.mjs': SLASH_COMMENT,
      '.cjs': SLASH_COMMENT,
      '.ts': SLASH_COMMENT,
      '.mts': SLASH_COMMENT,
      '.json': JSON_FIELD,
    },
  },
};

/** The format for an item type and extension (with its dot), or undefined when unsupported. */
export function signatureFormatFor(
  itemType: ItemType,
  extension: string,
  table: SignatureFormatTable = DEFAULT_SIGNATURE_FORMATS,
): SignatureFormat | undefined {
  const rows = table[itemType];
  return rows.extensions[extension.toLowerCase()] ?? rows.fallback;
}

/** A table with `overrides` rows laid over `base` (per item type, per extension). */
export function mergeSignatureFormats(
  base: SignatureFormatTable,
  overrides: Partial<Record<ItemType, Partial<SignatureFormatRows>>>,
): SignatureFormatTable {
  const merge = (type: ItemType): SignatureFormatRows => {
    const over = overrides[type];
    const fallback = over?.fallback ?? base[type].fallback;
    const extensions = { ...base[type].extensions, ...over?.extensions };
    return fallback === undefined ? { extensions } : { fallback, extensions };
  };
  return { directive: merge('directive'), tool: merge('tool'), knowledge: merge('knowledge') };
}

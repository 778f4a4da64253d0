/**
 * Parse a project `.env` file. Untrusted input: values are data only — no
 * command substitution, no `$VAR` expansion, nothing is executed.
 */

/** Result of {@link parseDotenvDetailed}. */
export interface DotenvParseResult {
  /** Null-prototype record; a later line wins over an earlier one with the same key. */
  readonly entries: Record<string, string>;
  /** One line per skipped line; never includes the line's content (it may be a secret). */
  readonly warnings: readonly string[];
}

const KEY_RE = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/s;
const ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  r: '\r',
  t: '\t',
  '"': '"',
  '\\': '\\',
};

type ValueResult = { readonly value: string } | { readonly error: string };

/** After a closing quote only blanks and a `#` comment may follow. */
function restIsComment(rest: string): boolean {
  const trimmed = rest.trim();
  return trimmed === '' || trimmed.startsWith('#');
}

function parseSingleQuoted(raw: string): ValueResult {
  const end = raw.indexOf("'", 1);
  if (end < 0) return { error: 'unterminated single quote' };
  if (!restIsComment(raw.slice(end + 1))) return { error: 'text after closing quote' };
  return { value: raw.slice(1, end) };
}

function parseDoubleQuoted(raw: string): ValueResult {
  let value = '';
  for (let i = 1; i < raw.length; i += 1) {
    const ch = raw[i] as string;
    if (ch === '"') {
      if (!restIsComment(raw.slice(i + 1))) return { error: 'text after closing quote' };
      return { value };
    }
    if (ch === '\\' && i + 1 < raw.length) {
      const next = raw[i + 1] as string;
      // Unknown escapes are kept as written (backslash included).
      value += ESCAPES[next] ?? `\\${next}`;
      i += 1;
    } else {
      value += ch;
    }
  }
  return { error: 'unterminated double quote' };
}

function parseUnquoted(raw: string): ValueResult {
  // `#` starts a comment only after whitespace, so `a#b` keeps its `#`.
  const comment = raw.search(/\s#/);
  return { value: (comment < 0 ? raw : raw.slice(0, comment)).trim() };
}

function parseValue(raw: string): ValueResult {
  // A NUL byte cannot be passed to a child process environment.
  if (raw.includes('\0')) return { error: 'NUL byte in value' };
  if (raw.startsWith("'")) return parseSingleQuoted(raw);
  if (raw.startsWith('"')) return parseDoubleQuoted(raw);
  if (raw.startsWith('#')) return { value: '' };
  return parseUnquoted(raw);
}

/**
 * Parse `.env` text: `KEY=value`, `export KEY=value`, `#` comments, blank
 * lines, `'single'` (literal) and `"double"` quoted values (`\n`, `\r`, `\t`,
 * `\"`, `\\` escapes). Values are single-line. Lines that do not parse are
 * skipped and reported in `warnings` by line number. Pure; never throws.
 */
export function parseDotenvDetailed(text: string): DotenvParseResult {
  const entries: Record<string, string> = Object.create(null) as Record<string, string>;
  const warnings: string[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const match = KEY_RE.exec(trimmed);
    if (match === null) {
      warnings.push(`.env line ${index + 1}: skipped, expected KEY=value`);
      return;
    }
    const [, key, raw] = match as unknown as [string, string, string];
    const parsed = parseValue(raw);
    if ('error' in parsed) {
      warnings.push(`.env line ${index + 1}: skipped ${key}, ${parsed.error}`);
      return;
    }
    entries[key] = parsed.value;
  });
  return { entries, warnings };
}

/**
 * Parse `.env` text into a null-prototype record (see
 * {@link parseDotenvDetailed}; invalid lines are skipped). Pure; never throws.
 */
export function parseDotenv(text: string): Record<string, string> {
  return parseDotenvDetailed(text).entries;
}

/**
 * The one glob compiler: item-id globs (`rye sign tool 'apps/**'`), trusted-key
 * scopes (`apps/*`) and bundle exclude names (`*.log`) all match through it.
 */

/**
 * Compile a glob over `/`-separated paths: `*` matches any run of characters
 * within one segment, `**` any run across segments (`a/**` is everything below
 * `a`; `**\/x` is `x` at any depth, the top level included), `?` one character
 * other than `/`. Every other character matches itself. Pure; the pattern is
 * compiled once, the matcher is a single anchored regular expression.
 */
export function compileGlob(pattern: string): (path: string) => boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i] ?? '';
    if (c === '*' && pattern[i + 1] === '*') {
      const slashAfter = pattern[i + 2] === '/';
      source += slashAfter ? '(?:.*/)?' : '.*';
      i += slashAfter ? 2 : 1;
    } else if (c === '*') {
      source += '[^/]*';
    } else if (c === '?') {
      source += '[^/]';
    } else {
      source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  // `s`: a name holding a line break is still one name.
  const re = new RegExp(`^${source}$`, 's');
  return (path) => re.test(path);
}

/** True when `pattern` holds a wildcard (`*`, `**` or `?`) rather than naming one path. */
export function isGlob(pattern: string): boolean {
  return /[*?]/.test(pattern);
}

import { errorJson, exitCodeFor, hintFor, isRyeError, type ErrorCode } from '../errors/index.js';
import {
  escapeControl,
  escapeControlInJson,
  escapeControlLines,
  redactSecrets,
} from '../platform/index.js';
import type { CommandContext } from './context.js';

// Every string a command prints may come from outside (trust files, item
// metadata, file names, manifests, lockfiles, registry answers), so output is
// escaped here, where it is written, not at each call site: in human mode each
// element of `lines` is one terminal line and is escaped whole (an LF inside
// an element shows as `\n`: the CLI's layout is the list, never a value); in
// JSON mode the document keeps its value and loses nothing but raw controls.
// Every secret (a capability token, a provider key, a secret this process was
// given, src/platform/secrets.ts) is redacted on the same edge, whatever
// echoed it (a provider's error message, a tool's output).

type Output = Pick<CommandContext, 'json' | 'io'>;

/** One line as the terminal gets it: secrets redacted, controls escaped. */
function shown(text: string): string {
  return escapeControl(redactSecrets(text));
}

/**
 * Where live progress goes (a thread's turns and calls, on stderr in human
 * mode): the same edge as every other line, so a tool-call id or item id a
 * model wrote (an OSC 52 sequence, a newline) reaches the terminal escaped.
 */
export function progressLine(ctx: Output): (line: string) => void {
  return (line) => ctx.io.stderr(`${shown(line)}\n`);
}

/**
 * Print a command's result: the JSON document (see {@link formatJson}), or the
 * human lines, one element per terminal line, each through `escapeControl`.
 */
export function emit(ctx: Output, document: unknown, lines: readonly string[]): void {
  if (ctx.json) ctx.io.stdout(formatJson(document));
  else if (lines.length > 0) ctx.io.stdout(lines.map(shown).join('\n') + '\n');
}

/**
 * {@link emit} for the one command whose output is a secret it was asked to
 * make (`rye cap mint` without `--out`): escaped, not redacted.
 */
export function emitSecret(ctx: Output, document: unknown, lines: readonly string[]): void {
  if (ctx.json) ctx.io.stdout(escapeControlInJson(JSON.stringify(document, null, 2)) + '\n');
  else if (lines.length > 0) ctx.io.stdout(lines.map(escapeControl).join('\n') + '\n');
}

/**
 * A JSON document as printed: 2-space indent, a final newline, and every
 * character a terminal would interpret or hide (DEL, C1, bidi and other format
 * characters, U+2028/U+2029; C0 is escaped by JSON itself) written as its
 * `\uXXXX` escape, so the text parses back to the same value.
 */
export function formatJson(document: unknown): string {
  return escapeControlInJson(redactSecrets(JSON.stringify(document, null, 2))) + '\n';
}

/** Print a warning on stderr in human mode (JSON documents carry their warnings). */
export function warn(ctx: Output, warning: { code: string; message: string }): void {
  if (!ctx.json) ctx.io.stderr(`warning[${warning.code}]: ${shown(warning.message)}\n`);
}

/**
 * The JSON shape of an error: `{ok: false, error: {code, message, hint, details}}`,
 * the keys of `details` in snake_case (docs/json-output.md).
 */
export function errorDocument(code: ErrorCode, message: string, details: unknown = {}): unknown {
  return { ok: false, error: errorJson(code, message, details) };
}

/**
 * Report a thrown error and return the exit code: RyeError codes map to 1, 2
 * or 3; anything else is an internal error (1) with its stack on stderr.
 */
export function reportError(ctx: Output, error: unknown): number {
  if (isRyeError(error)) {
    if (ctx.json)
      ctx.io.stdout(formatJson(errorDocument(error.code, error.message, error.details)));
    else
      ctx.io.stderr(
        `error[${error.code}]: ${shown(error.message)}\n${detailLines(error.details)}hint: ${hintFor(error.code)}\n`,
      );
    return exitCodeFor(error.code);
  }
  const message = error instanceof Error ? error.message : String(error);
  if (ctx.json) ctx.io.stdout(formatJson(errorDocument('INTERNAL_ERROR', message)));
  else ctx.io.stderr(`error[INTERNAL_ERROR]: ${shown(message)}\n${stackFrames(error)}\n`);
  return exitCodeFor('INTERNAL_ERROR');
}

/**
 * One line per issue: `  - <where>: <message>`. Issues name their place as
 * `field` (item validation) or `path` (a JSON pointer into params: `/a/0`
 * shows as `a/0`, the root as `params`); a bare string is its own message.
 */
function detailLines(details: Readonly<Record<string, unknown>>): string {
  const issues = details['issues'];
  if (!Array.isArray(issues)) return '';
  return issues
    .map((issue: unknown) => {
      if (typeof issue !== 'object' || issue === null) return `  - ${shown(String(issue))}\n`;
      const i = issue as { field?: unknown; path?: unknown; message?: unknown };
      const where = issueWhere(i.field ?? i.path);
      const message = shown(String(i.message ?? ''));
      return where === '' ? `  - ${message}\n` : `  - ${shown(where)}: ${message}\n`;
    })
    .join('');
}

function issueWhere(place: unknown): string {
  if (typeof place !== 'string') return '';
  if (place === '/') return 'params';
  return place.startsWith('/') ? place.slice(1).replace(/~1/g, '/').replace(/~0/g, '~') : place;
}

/** The stack's frames, without its first line (the message, printed escaped above). */
function stackFrames(error: unknown): string {
  if (!(error instanceof Error) || error.stack === undefined) return '';
  const head = `${error.name}: ${error.message}`;
  const stack = error.stack.startsWith(head) ? error.stack.slice(head.length + 1) : error.stack;
  return escapeControlLines(stack);
}

/**
 * A password typed on a terminal, never echoed: the terminal is put in raw
 * mode for the prompt (so the line discipline shows nothing) and restored
 * after, whatever happens. Scripts keep `--password-stdin`.
 */
import { RyeError } from '../errors/index.js';

/** What the prompt needs of standard input (process.stdin, or a test double). */
export interface SecretInput {
  setRawMode?(mode: boolean): unknown;
  setEncoding(encoding: 'utf8'): unknown;
  on(event: 'data', listener: (chunk: string) => void): unknown;
  removeListener(event: 'data', listener: (chunk: string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/** Longest secret accepted from the keyboard, in characters. */
export const MAX_SECRET_CHARS = 1024;

/**
 * Print `prompt` with `write` (stderr), read one line from `input` without
 * echoing it, and return it. Backspace (DEL, ^H) erases, ^U erases the line,
 * Enter ends; ^C and ^D on an empty line cancel. Other control characters
 * (arrow keys' escape sequences included) are ignored.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT when cancelled or over MAX_SECRET_CHARS
 */
export function readHiddenLine(
  input: SecretInput,
  write: (text: string) => void,
  prompt: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let secret: string[] = [];
    let inEscape = false;
    const finish = (error: RyeError | null): void => {
      input.removeListener('data', onData);
      input.setRawMode?.(false);
      input.pause();
      write('\n');
      if (error === null) resolve(secret.join(''));
      else reject(error);
    };
    const onData = (chunk: string): void => {
      for (const char of chunk) {
        if (inEscape) {
          // An escape sequence ends with its first letter or `~` (ESC [ A, ESC [ 3 ~).
          if (/[A-Za-z~]/.test(char)) inEscape = false;
          continue;
        }
        if (char === '\r' || char === '\n') return finish(null);
        if (char === '\u0003' || (char === '\u0004' && secret.length === 0))
          return finish(cancelled());
        if (char === '\u007f' || char === '\b') secret = secret.slice(0, -1);
        else if (char === '\u0015') secret = [];
        else if (char === '\u001b') inEscape = true;
        else if (char >= ' ') {
          if (secret.length >= MAX_SECRET_CHARS) return finish(tooLong());
          secret.push(char);
        }
      }
    };
    write(prompt);
    input.setEncoding('utf8');
    input.setRawMode?.(true);
    input.on('data', onData);
    input.resume();
  });
}

function cancelled(): RyeError {
  return new RyeError('USAGE_INVALID_ARGUMENT', 'Cannot read the password: cancelled', {});
}

function tooLong(): RyeError {
  return new RyeError(
    'USAGE_INVALID_ARGUMENT',
    `Cannot read the password: it is longer than ${MAX_SECRET_CHARS} characters`,
    {},
  );
}

/**
 * Untrusted text as it may appear in a message: control, line-separator and
 * C1 characters shown as `?`, at most `max` characters.
 */
export function printable(text: string, max = 200): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is hidden
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?').slice(0, max);
}

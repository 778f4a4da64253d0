import type { ErrorCode } from './codes.js';

/** Structured evidence attached to an error (paths, expected/actual hashes, issues…). */
export type ErrorDetails = Readonly<Record<string, unknown>>;

/**
 * The one error type the library throws on purpose. `code` is stable API;
 * `message` follows "Cannot <do>: <why>"; `details` carries evidence.
 */
export class RyeError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(
    code: ErrorCode,
    message: string,
    details: ErrorDetails = {},
    options: { cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RyeError';
    this.code = code;
    this.details = details;
  }

  /** A JSON-safe view: `{code, message, details}`. */
  toJSON(): { code: ErrorCode; message: string; details: ErrorDetails } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** Narrow an unknown thrown value to a RyeError, optionally of one code. */
export function isRyeError(value: unknown, code?: ErrorCode): value is RyeError {
  return value instanceof RyeError && (code === undefined || value.code === code);
}

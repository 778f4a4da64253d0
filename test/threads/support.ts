import { expect } from 'vitest';
import { isRyeError, type ErrorCode, type RyeError } from '../../src/errors/index.js';

/** Run `fn`, expect a RyeError of `code`, and return it for further checks. */
export function expectRyeError(fn: () => unknown, code: ErrorCode): RyeError {
  try {
    fn();
  } catch (error) {
    if (isRyeError(error)) {
      expect(error.code, error.message).toBe(code);
      return error;
    }
    throw error;
  }
  throw new Error(`expected ${code}, but nothing was thrown`);
}

/** {@link expectRyeError} for an async function. */
export async function expectRyeErrorAsync(
  fn: () => Promise<unknown>,
  code: ErrorCode,
): Promise<RyeError> {
  try {
    await fn();
  } catch (error) {
    if (isRyeError(error)) {
      expect(error.code, error.message).toBe(code);
      return error;
    }
    throw error;
  }
  throw new Error(`expected ${code}, but nothing was thrown`);
}

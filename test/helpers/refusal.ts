import { isRyeError, type ErrorCode } from '../../src/errors/index.js';

/** The RyeError a promise rejects with; fails the test when it resolves or throws anything else. */
export async function refusal(
  promise: Promise<unknown>,
): Promise<{ code: ErrorCode; message: string; details: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    if (isRyeError(error)) {
      return {
        code: error.code,
        message: error.message,
        details: error.details as Record<string, unknown>,
      };
    }
    throw error;
  }
  throw new Error('expected a refusal, but the promise resolved');
}

import { isRyeError, type ErrorCode } from '../../src/errors/index.js';

/** The RyeError `run` throws; fails the test when it returns or throws anything else. */
export function thrown(run: () => unknown): {
  code: ErrorCode;
  message: string;
  details: Record<string, unknown>;
} {
  try {
    run();
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
  throw new Error('expected a RyeError, but the call returned');
}

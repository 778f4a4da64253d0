import { hintFor, type RyeError } from '../errors/index.js';
import type { OperationResult } from './schemas.js';

/** The error half of an operation result, from a refusal. */
export function errorResult(error: RyeError, itemId?: string): OperationResult {
  return {
    status: 'error',
    ...(itemId === undefined ? {} : { item_id: itemId }),
    error: {
      code: error.code,
      message: error.message,
      hint: hintFor(error.code),
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
}

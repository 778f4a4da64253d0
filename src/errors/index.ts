export { ERROR_CODES, exitCodeFor, hintFor, isIntegrityCode } from './codes.js';
export type { ErrorClass, ErrorCode } from './codes.js';
export { RyeError, isRyeError } from './rye-error.js';
export type { ErrorDetails } from './rye-error.js';
export { errorJson, snakeCaseKeys } from './error-json.js';
export type { ErrorJson } from './error-json.js';

import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { RyeError, isRyeError, type ErrorCode } from '../../errors/index.js';
import type { ErrorDocument } from '../wire.js';

/**
 * The registry's one mapping from error codes to HTTP statuses (README,
 * "Statuses"). A code not listed here is a server fault: it is answered as
 * 500 REGISTRY_INTERNAL and its message is logged, never sent.
 */
const STATUS: Partial<Record<ErrorCode, ContentfulStatusCode>> = {
  REGISTRY_INVALID_REQUEST: 400,
  REGISTRY_REF_INVALID: 400,
  ITEM_TYPE_INVALID: 400,
  ITEM_ID_INVALID: 400,
  REGISTRY_AUTH_REQUIRED: 401,
  REGISTRY_AUTH_INVALID: 401,
  REGISTRY_FORBIDDEN: 403,
  ITEM_ID_RESERVED: 403,
  REGISTRY_NOT_FOUND: 404,
  REGISTRY_USERNAME_TAKEN: 409,
  REGISTRY_VERSION_CONFLICT: 409,
  REGISTRY_KEY_TAKEN: 409,
  REGISTRY_BODY_TOO_LARGE: 413,
  REGISTRY_RATE_LIMITED: 429,
  REGISTRY_TOO_MANY_UPLOADS: 429,
  VALIDATION_FAILED: 422,
  METADATA_PARSE_FAILED: 422,
  PARSE_UNSAFE_CONTENT: 422,
  ITEM_UNSUPPORTED_EXTENSION: 422,
  KEY_INVALID: 422,
  REGISTRY_AUTHOR_KEY_UNKNOWN: 422,
  REGISTRY_SIGNATURE_INVALID: 422,
  REGISTRY_BLOB_MISSING: 422,
  REGISTRY_BLOB_HASH_MISMATCH: 422,
  BUNDLE_MANIFEST_INVALID: 422,
  REGISTRY_KEY_PROOF_MISSING: 400,
  REGISTRY_KEY_PROOF_EXPIRED: 422,
  REGISTRY_KEY_PROOF_REUSED: 422,
  REGISTRY_KEY_PROOF_INVALID: 422,
  REGISTRY_VERSION_MISMATCH: 422,
  REGISTRY_BLOB_CORRUPT: 500,
  REGISTRY_INTERNAL: 500,
  // Refusals, not faults: answered as they are and not logged as internal errors.
  REGISTRY_BUSY: 503,
  REGISTRY_QUOTA_EXCEEDED: 507,
};

/** The HTTP status of an error code, or undefined for a code the registry never answers with. */
export function statusFor(code: ErrorCode): ContentfulStatusCode | undefined {
  return STATUS[code];
}

/** What an error turns into on the wire, and whether it is a server fault to log. */
export interface WireError {
  readonly status: ContentfulStatusCode;
  readonly body: ErrorDocument;
  /** Set for 500s (not 503/507 refusals): the original message (with any stack), for the log only. */
  readonly internal: string | null;
}

const INTERNAL_MESSAGE = 'Cannot answer: the registry failed; the error is in its log';

/** Map anything thrown to the wire: mapped RyeErrors as they are, all else 500 REGISTRY_INTERNAL. */
export function wireErrorOf(error: unknown): WireError {
  if (isRyeError(error)) {
    const status = statusFor(error.code);
    if (status !== undefined) {
      const internal = status === 500 ? error.message : null;
      return { status, body: errorBody(error.code, error.message), internal };
    }
  }
  const internal =
    error instanceof Error
      ? `${isRyeError(error) ? `${error.code}: ` : ''}${error.stack ?? error.message}`
      : String(error);
  return { status: 500, body: errorBody('REGISTRY_INTERNAL', INTERNAL_MESSAGE), internal };
}

/** `{error:{code,message}}`. */
export function errorBody(code: ErrorCode, message: string): ErrorDocument {
  return { error: { code, message } };
}

/** Shorthand for the errors handlers throw. */
export function invalidRequest(message: string, details: Record<string, unknown> = {}): RyeError {
  return new RyeError('REGISTRY_INVALID_REQUEST', message, details);
}

export function notFound(message: string): RyeError {
  return new RyeError('REGISTRY_NOT_FOUND', message, {});
}

export function tooLarge(what: string, limit: number): RyeError {
  return new RyeError(
    'REGISTRY_BODY_TOO_LARGE',
    `Cannot accept ${what}: it is larger than ${limit} bytes`,
    { limit },
  );
}

export function forbidden(message: string): RyeError {
  return new RyeError('REGISTRY_FORBIDDEN', message, {});
}

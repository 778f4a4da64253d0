/**
 * Every error code the system can raise, in one place: one table per domain
 * under `codes/`, merged here into `ERROR_CODES`. Codes are API: they are never
 * renamed or reused. Each code belongs to a class that fixes its CLI exit code
 * (see `exitCodeFor`) and carries a one-line hint for humans.
 */
import { BUNDLE_CODES } from './codes/bundle.js';
import { CAPABILITY_CODES } from './codes/capabilities.js';
import { CATALOG_CODES } from './codes/catalog.js';
import { mergeCodeTables } from './codes/code-table.js';
import type { ErrorClass, MergedCodes } from './codes/code-table.js';
import { EXECUTOR_CODES } from './codes/executor.js';
import { GENERAL_CODES } from './codes/general.js';
import { INTEGRITY_CODES } from './codes/integrity.js';
import { ITEM_CODES } from './codes/items.js';
import { LOCKFILE_CODES } from './codes/lockfile.js';
import { MCP_CODES } from './codes/mcp.js';
import { OPERATION_CODES } from './codes/ops.js';
import { PLATFORM_CODES } from './codes/platform.js';
import { PROVIDER_CODES } from './codes/providers.js';
import { REGISTRY_CODES } from './codes/registry.js';
import { SYSTEM_TOOL_CODES } from './codes/system-tools.js';
import { THREAD_CODES } from './codes/threads.js';

export type { ErrorClass } from './codes/code-table.js';

/**
 * The domain tables, lowest layer first: docs/errors.md lists the codes of each
 * class in this order. A code is in exactly one of them.
 */
export const CODE_TABLES = [
  GENERAL_CODES,
  PLATFORM_CODES,
  INTEGRITY_CODES,
  ITEM_CODES,
  LOCKFILE_CODES,
  BUNDLE_CODES,
  EXECUTOR_CODES,
  CAPABILITY_CODES,
  CATALOG_CODES,
  OPERATION_CODES,
  THREAD_CODES,
  PROVIDER_CODES,
  REGISTRY_CODES,
  MCP_CODES,
  SYSTEM_TOOL_CODES,
] as const;

/** Every code with its class and hint. Throws at module load if two tables share a code. */
export const ERROR_CODES: MergedCodes<typeof CODE_TABLES> = mergeCodeTables(CODE_TABLES);

export type ErrorCode = keyof typeof ERROR_CODES;

const EXIT_CODES: Record<ErrorClass, number> = { usage: 2, failure: 1, integrity: 3 };

/** The CLI exit code for an error code: 1 failure, 2 usage, 3 integrity refusal. */
export function exitCodeFor(code: ErrorCode): number {
  return EXIT_CODES[ERROR_CODES[code].class];
}

/** The one-line hint shown under an error of this code. */
export function hintFor(code: ErrorCode): string {
  return ERROR_CODES[code].hint;
}

/** True for codes in the integrity class (refusals). */
export function isIntegrityCode(code: ErrorCode): boolean {
  return ERROR_CODES[code].class === 'integrity';
}

/**
 * A tool's signed permissions (CONTAINMENT.md §1.3): what its sandbox may
 * read, write and reach. Read from the tool's metadata like its other fields
 * (`__permissions__`, `export const __permissions__`, `# __permissions__ =`,
 * `permissions:`), so changing them needs a new signature. Pure.
 */
import { isSecretEnvName } from '../platform/index.js';
import type { ValidationIssue } from './metadata/types.js';

/** The permissions of one tool, as declared (or the defaults). */
export interface ToolPermissions {
  /** Project-relative paths the tool may read; `.` is the project root; `!x` masks x. */
  readonly read: readonly string[];
  /** Project-relative paths the tool may write (a folder and everything in it). */
  readonly write: readonly string[];
  /** True: the host's network namespace. */
  readonly network: boolean;
  /** Names passed from the caller's environment. */
  readonly env: readonly string[];
  /** Capability patterns the tool may use over the operation channel (fd 3). */
  readonly rye: readonly string[];
  /** True: what the tool starts may outlive the call, in its own sandbox. */
  readonly daemon: boolean;
  /** RLIMIT_FSIZE of the sandbox, in MiB. */
  readonly maxFileMb: number;
}

/** What a tool that declares nothing gets: the project but `.ai/` read-only, nothing else. */
export const DEFAULT_PERMISSIONS: ToolPermissions = Object.freeze({
  read: Object.freeze(['.', '!.ai']),
  write: Object.freeze([]),
  network: false,
  env: Object.freeze([]),
  rye: Object.freeze([]),
  daemon: false,
  maxFileMb: 256,
});

const KEYS = ['read', 'write', 'network', 'env', 'rye', 'daemon', 'max_file_mb'] as const;

/**
 * Folders under `.ai/` that no sandbox ever sees, whatever a tool declares:
 * other threads' transcripts, keys, the project's trust store.
 */
export const NEVER_VISIBLE = ['.ai/threads', '.ai/keys', '.ai/trusted_keys'] as const;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** `rye.<verb>[.<type>[.<id pattern>]]`, verb and type each possibly `*` (the channel's grammar). */
const CAPABILITY =
  /^rye\.(?:execute|search|load|sign|\*)(?:\.(?:directive|tool|knowledge|\*)(?:\.\S+)?)?$/;
const MAX_ENTRIES = 64;

/** The outcome of {@link parsePermissions}: issues are errors, warnings do not block signing. */
export interface ParsedPermissions {
  readonly permissions: ToolPermissions;
  readonly issues: readonly ValidationIssue[];
  readonly warnings: readonly ValidationIssue[];
}

/**
 * Check a declared `permissions` value (untrusted metadata) and fill in the
 * defaults for what it leaves out. Undefined (nothing declared) gives
 * {@link DEFAULT_PERMISSIONS}. Every problem is collected, each with a stable
 * code: PERMISSIONS_INVALID (not a mapping, a wrong type, too many entries),
 * PERMISSIONS_UNKNOWN_KEY, PERMISSIONS_PATH_ABSOLUTE, PERMISSIONS_PATH_ESCAPES
 * (`..`, `~`), PERMISSIONS_PATH_RESERVED (`.ai/threads`, `.ai/keys`,
 * `.ai/trusted_keys`), PERMISSIONS_GLOB_UNSUPPORTED (a glob other than a
 * trailing `/**`); and the warning PERMISSIONS_SECRET_ENV for a declared
 * secret name, which never passes anyway. Never throws.
 */
export function parsePermissions(raw: unknown): ParsedPermissions {
  const issues: ValidationIssue[] = [];
  const warnings: ValidationIssue[] = [];
  if (raw === undefined) return { permissions: DEFAULT_PERMISSIONS, issues, warnings };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    issues.push(problem('permissions', 'PERMISSIONS_INVALID', 'must be a mapping'));
    return { permissions: DEFAULT_PERMISSIONS, issues, warnings };
  }
  const source = raw as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    if (!(KEYS as readonly string[]).includes(key))
      issues.push(
        problem(
          `permissions.${key}`,
          'PERMISSIONS_UNKNOWN_KEY',
          `is not a permission (known: ${KEYS.join(', ')})`,
        ),
      );
  }
  const field = (key: string): unknown => (Object.hasOwn(source, key) ? source[key] : undefined);
  const read = pathList(field('read'), 'read', issues) ?? DEFAULT_PERMISSIONS.read;
  const write = pathList(field('write'), 'write', issues) ?? DEFAULT_PERMISSIONS.write;
  const env = stringList(field('env'), 'env', issues, (name, at) => {
    if (!ENV_NAME.test(name)) return 'is not an environment variable name';
    if (isSecretEnvName(name))
      warnings.push(
        problem(
          at,
          'PERMISSIONS_SECRET_ENV',
          `${name} is a secret that never reaches a tool process; the declaration has no effect`,
        ),
      );
    return null;
  });
  const rye = stringList(field('rye'), 'rye', issues, (pattern) =>
    CAPABILITY.test(pattern)
      ? null
      : 'is not a capability pattern (rye.<verb>.<type>.<id>, verb execute|search|load|sign|*, type directive|tool|knowledge|*)',
  );
  const network = flag(field('network'), 'network', issues) ?? false;
  const daemon = flag(field('daemon'), 'daemon', issues) ?? false;
  const maxFile = field('max_file_mb');
  let maxFileMb = DEFAULT_PERMISSIONS.maxFileMb;
  if (maxFile !== undefined) {
    if (typeof maxFile === 'number' && Number.isSafeInteger(maxFile) && maxFile >= 1)
      maxFileMb = maxFile;
    else
      issues.push(
        problem(
          'permissions.max_file_mb',
          'PERMISSIONS_INVALID',
          'must be a whole number of MiB, at least 1',
        ),
      );
  }
  const permissions: ToolPermissions = {
    read,
    write,
    network,
    env: env ?? [],
    rye: rye ?? [],
    daemon,
    maxFileMb,
  };
  return { permissions, issues, warnings };
}

/**
 * Why a project-relative permission path is refused, or null when it is
 * fine: `.`, `a/b`, `a/b/**`, each optionally `!`-prefixed (a mask).
 */
export function permissionPathProblem(
  entry: string,
): { readonly code: string; readonly why: string } | null {
  const path = entry.startsWith('!') ? entry.slice(1) : entry;
  if (path === '') return { code: 'PERMISSIONS_INVALID', why: 'is empty' };
  if (path.startsWith('/'))
    return {
      code: 'PERMISSIONS_PATH_ABSOLUTE',
      why: 'must be relative to the project (no leading /)',
    };
  if (path.startsWith('~') || path.includes('\\') || path.includes('\0'))
    return {
      code: 'PERMISSIONS_PATH_ESCAPES',
      why: 'must be a plain project-relative path (no ~, \\ or NUL)',
    };
  const body = path.endsWith('/**') ? path.slice(0, -3) : path === '**' ? '.' : path;
  const segments = body.split('/');
  if (segments.includes('..'))
    return { code: 'PERMISSIONS_PATH_ESCAPES', why: 'may not contain ..' };
  if (segments.some((s, i) => s === '' || (s === '.' && (i > 0 || segments.length > 1))))
    return { code: 'PERMISSIONS_INVALID', why: 'has an empty or "." segment' };
  if (/[*?[\]{}]/.test(body))
    return {
      code: 'PERMISSIONS_GLOB_UNSUPPORTED',
      why: 'may use a glob only as a trailing /** (a folder and everything in it)',
    };
  const normal = normalPermissionPath(path);
  if (
    !entry.startsWith('!') &&
    NEVER_VISIBLE.some((r) => normal === r || normal.startsWith(`${r}/`))
  )
    return {
      code: 'PERMISSIONS_PATH_RESERVED',
      why: `names ${normal}, which no sandbox ever sees`,
    };
  return null;
}

/** `a/b/**`, `a/b`, `!a/b` → `a/b`; `**` → `.`. Pure; for a path that passed the checks. */
export function normalPermissionPath(entry: string): string {
  const path = entry.startsWith('!') ? entry.slice(1) : entry;
  if (path === '**') return '.';
  return path.endsWith('/**') ? path.slice(0, -3) : path;
}

function pathList(
  value: unknown,
  key: 'read' | 'write',
  issues: ValidationIssue[],
): readonly string[] | undefined {
  return stringList(value, key, issues, (entry, at) => {
    const found = permissionPathProblem(entry);
    if (found === null) return null;
    issues.push(problem(at, found.code, `${JSON.stringify(entry)} ${found.why}`));
    return '';
  });
}

/** A list of strings; `check` returns why an entry is refused ('' when it recorded the issue itself). */
function stringList(
  value: unknown,
  key: string,
  issues: ValidationIssue[],
  check: (entry: string, at: string) => string | null,
): readonly string[] | undefined {
  if (value === undefined) return undefined;
  const at = `permissions.${key}`;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    issues.push(problem(at, 'PERMISSIONS_INVALID', 'must be a list of strings'));
    return undefined;
  }
  if (value.length > MAX_ENTRIES) {
    issues.push(problem(at, 'PERMISSIONS_INVALID', `has more than ${MAX_ENTRIES} entries`));
    return undefined;
  }
  const entries = value as string[];
  let ok = true;
  entries.forEach((entry, index) => {
    const why = check(entry, `${at}[${index}]`);
    if (why === null) return;
    ok = false;
    if (why !== '')
      issues.push(
        problem(`${at}[${index}]`, 'PERMISSIONS_INVALID', `${JSON.stringify(entry)} ${why}`),
      );
  });
  return ok ? Object.freeze([...entries]) : undefined;
}

function flag(value: unknown, key: string, issues: ValidationIssue[]): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  issues.push(problem(`permissions.${key}`, 'PERMISSIONS_INVALID', 'must be true or false'));
  return undefined;
}

function problem(field: string, code: string, message: string): ValidationIssue {
  return { field, message, code };
}

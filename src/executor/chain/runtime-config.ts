import { isAbsolute } from 'node:path';
import { RyeError } from '../../errors/index.js';
import { FieldReader, fieldOf, type FieldProblem, type FieldType } from '../../platform/index.js';
import type { ValidationIssue } from '../../items/index.js';
import { ENV_NAME_RE } from '../env/env-config.js';
import type { AnchorConfig, VerifyDepsConfig } from '../types.js';

/** Seed 000 default for `verify_deps.exclude_dirs`. */
export const DEFAULT_EXCLUDE_DIRS: readonly string[] = [
  '__pycache__',
  '.venv',
  'node_modules',
  '.git',
];

const ANCHOR_KEYS = [
  'enabled',
  'mode',
  'markers_any',
  'root',
  'lib',
  'lib_package',
  'cwd',
  'env_paths',
];
const VERIFY_KEYS = [
  'enabled',
  'scope',
  'recursive',
  'extensions',
  'exclude_dirs',
  'third_party_dirs',
];
const MODES = ['always', 'auto', 'never'] as const;
const ROOTS = ['tool_dir', 'tool_parent', 'project_path'] as const;
const SCOPES = ['anchor', 'tool_dir', 'tool_siblings', 'tool_file'] as const;
const EXTENSION = /^\.[A-Za-z0-9_-]+$/;

type Raw = Readonly<Record<string, unknown>>;

/**
 * Parse a runtime YAML's `anchor:` section (untrusted input: plain or
 * null-prototype objects). Absent (`undefined`/`null`) → null. Defaults follow
 * seed 000: enabled false, mode auto, no markers, root tool_dir, no lib/cwd/env_paths.
 *
 * @throws RyeError EXECUTOR_CONFIG_INVALID with `details.issues` ({field, message}[])
 *   listing every malformed or unknown key.
 */
export function parseAnchorConfig(raw: unknown, source: string): AnchorConfig | null {
  if (raw === undefined || raw === null) return null;
  const r = reader(raw, 'anchor', ANCHOR_KEYS);
  const config: AnchorConfig = {
    enabled: r.bool('enabled', false),
    mode: r.oneOf('mode', MODES, 'auto'),
    markersAny: r.names('markers_any', []),
    root: r.oneOf('root', ROOTS, 'tool_dir'),
    lib: libPath(r.value('lib'), r.issues),
    cwd: r.optionalText('cwd'),
    envPaths: envPaths(r.value('env_paths'), r.issues),
  };
  const libPackage = packageName(r.value('lib_package'), config.lib, r.issues);
  return r.done(libPackage === null ? config : { ...config, libPackage }, source);
}

/**
 * Parse a runtime YAML's `verify_deps:` section. Absent → null. Defaults follow
 * seed 000: enabled false, scope anchor, recursive true, exclude_dirs
 * {@link DEFAULT_EXCLUDE_DIRS}. An enabled section that walks files must list
 * `extensions`: an empty list would verify nothing, silently.
 *
 * @throws RyeError EXECUTOR_CONFIG_INVALID with `details.issues` ({field, message}[]).
 */
export function parseVerifyDepsConfig(raw: unknown, source: string): VerifyDepsConfig | null {
  if (raw === undefined || raw === null) return null;
  const r = reader(raw, 'verify_deps', VERIFY_KEYS);
  const field = 'verify_deps.extensions';
  const extensions = r.list('extensions', []).filter((ext) => {
    const ok = EXTENSION.test(ext);
    if (!ok) r.issues.push(bad(field, 'entries must start with a dot, like ".py"', ext));
    return ok;
  });
  let config: VerifyDepsConfig = {
    enabled: r.bool('enabled', false),
    scope: r.oneOf('scope', SCOPES, 'anchor'),
    recursive: r.bool('recursive', true),
    extensions,
    excludeDirs: r.names('exclude_dirs', DEFAULT_EXCLUDE_DIRS),
  };
  const thirdPartyDirs = r.names('third_party_dirs', []);
  if (thirdPartyDirs.length > 0) config = { ...config, thirdPartyDirs };
  if (config.enabled && config.scope !== 'tool_file' && extensions.length === 0) {
    r.issues.push(issue(field, 'must list at least one extension when enabled'));
  }
  return r.done(config, source);
}

/**
 * Typed reads of one section's keys (platform's FieldReader, worded here);
 * every problem lands in `issues`, then `done` fails once.
 */
function reader(raw: unknown, name: string, keys: readonly string[]) {
  const issues: ValidationIssue[] = [];
  const read = new FieldReader((field, problem) => issues.push(wording(field, problem)));
  const o = read.object(raw, name) ?? {};
  read.knownKeys(o, name, keys);
  const value = (key: string): unknown => fieldOf(o, key);
  const field = (key: string): string => `${name}.${key}`;
  const list = (key: string, fallback: readonly string[]): readonly string[] =>
    read.strings(o, key, name, { absent: 'optional', fallback, nonEmpty: true }) ?? [];
  return {
    issues,
    value,
    list,
    bool(key: string, fallback: boolean): boolean {
      return read.boolean(o, key, name, { fallback }) ?? fallback;
    },
    oneOf<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
      return read.oneOf(o, key, name, allowed, fallback) ?? fallback;
    },
    optionalText(key: string): string | null {
      const text = {
        absent: 'nullish',
        nonEmpty: true,
        label: 'a non-empty string or null',
      } as const;
      return read.string(o, key, name, text) ?? null;
    },
    /** Plain file or folder names: markers and excluded dirs match by name, never a path. */
    names(key: string, fallback: readonly string[]): readonly string[] {
      return list(key, fallback).filter((n) => {
        const plain = !/[/\\]/.test(n) && n !== '.' && n !== '..';
        if (!plain) issues.push(bad(field(key), 'entries must be plain names, not paths', n));
        return plain;
      });
    },
    done<T>(config: T, source: string): T {
      if (issues.length === 0) return config;
      const list = issues.map((i) => i.message).join('; ');
      throw new RyeError(
        'EXECUTOR_CONFIG_INVALID',
        `Cannot use the ${name} section of ${source}: ${list}`,
        { source, section: name, issues },
      );
    },
  };
}

const MUST: Readonly<Partial<Record<FieldType, string>>> = {
  object: 'a mapping',
  string: 'a non-empty string',
  boolean: 'true or false',
  array: 'a list of strings',
};

/** This file's words for a FieldReader problem: `<field> must be … (got …)`. */
function wording(field: string, problem: FieldProblem): ValidationIssue {
  switch (problem.kind) {
    case 'unknown_key':
      return issue(field, `is not a known key (${problem.known.join(', ')})`);
    case 'not_one_of':
      return bad(field, `must be one of ${problem.allowed.join(', ')}`, problem.actual);
    case 'type':
    case 'empty':
      return bad(
        field,
        `must be ${problem.label ?? MUST[problem.kind === 'empty' ? 'string' : problem.expected] ?? problem.kind}`,
        problem.actual,
      );
    default:
      return issue(field, problem.kind);
  }
}

function issue(field: string, why: string): ValidationIssue {
  return { field, message: `${field} ${why}` };
}

function bad(field: string, why: string, actual: unknown): ValidationIssue {
  return issue(field, `${why} (got ${show(actual)})`);
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object') return Array.isArray(value) ? 'a list' : 'a mapping';
  return `${typeof value} ${String(value)}`;
}

function isMapping(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function libPath(value: unknown, issues: ValidationIssue[]): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '') {
    issues.push(bad('anchor.lib', 'must be a relative path or null', value));
    return null;
  }
  // The lib folder must stay inside the runtime's own (signed, space-checked) folder.
  if (isAbsolute(value) || /^[A-Za-z]:/.test(value) || value.split(/[/\\]/).includes('..')) {
    issues.push(bad('anchor.lib', 'must be relative to the runtime YAML and free of ".."', value));
    return null;
  }
  return value;
}

/** An npm package name, optionally scoped: one or two segments, never `.`/`..`. */
const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;

function packageName(value: unknown, lib: string | null, issues: ValidationIssue[]): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !PACKAGE_NAME.test(value) || value.length > 214) {
    issues.push(bad('anchor.lib_package', 'must be a package name like "@scope/name"', value));
    return null;
  }
  if (lib === null) {
    issues.push(bad('anchor.lib_package', 'needs anchor.lib (the folder it mounts)', value));
    return null;
  }
  return value;
}

type EnvPaths = AnchorConfig['envPaths'];

function envPaths(value: unknown, issues: ValidationIssue[]): EnvPaths {
  if (value === undefined || value === null) return {};
  if (!isMapping(value)) {
    issues.push(bad('anchor.env_paths', 'must map variable names to {prepend, append}', value));
    return {};
  }
  // Entries, not assignment: a key like `__proto__` must stay data.
  const out: [string, EnvPaths[string]][] = [];
  for (const [name, spec] of Object.entries(value)) {
    const field = `anchor.env_paths.${name}`;
    if (!ENV_NAME_RE.test(name)) issues.push(issue(field, 'is not a valid variable name'));
    if (!isMapping(spec)) {
      issues.push(bad(field, 'must be a mapping with prepend and/or append lists', spec));
      continue;
    }
    for (const key of Object.keys(spec)) {
      if (key !== 'prepend' && key !== 'append') {
        issues.push(issue(`${field}.${key}`, 'is not a known key (prepend, append)'));
      }
    }
    const read = new FieldReader((at, problem) => issues.push(wording(at, problem)));
    const list = (key: string): string[] => [
      ...(read.strings(spec, key, field, { absent: 'optional', fallback: [], nonEmpty: true }) ??
        []),
    ];
    out.push([name, { prepend: list('prepend'), append: list('append') }]);
  }
  return Object.fromEntries(out);
}

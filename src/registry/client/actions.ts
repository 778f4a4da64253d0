/**
 * The registry client's one entry point for the `rye/core/registry/registry`
 * tool and the CLI (seed 002: `action=push_bundle bundle_id=…`).
 */
import { RyeError } from '../../errors/index.js';
import { resolveSpaces, type Spaces } from '../../items/index.js';
import type { PrepareToPin } from '../../lockfile/index.js';
import { search } from './browse.js';
import type { FetchFn } from './http.js';
import type { TransferProgressFn } from './progress.js';
import { pullBundle } from './pull-bundle.js';
import { pullItem } from './pull-item.js';
import { pushBundle } from './push-bundle.js';
import { pushItem } from './push-item.js';
import { openSession } from './open-session.js';
import type { Env } from './session.js';

export const REGISTRY_ACTIONS = ['push', 'pull', 'push_bundle', 'pull_bundle', 'search'] as const;
export type RegistryAction = (typeof REGISTRY_ACTIONS)[number];

/** Parameters as the tool receives them (snake_case JSON; checked here). */
export interface RegistryParams {
  readonly action?: unknown;
  readonly item_type?: unknown;
  /** push: the local id; pull: `<namespace>/<item_id>`. */
  readonly item_id?: unknown;
  /** push_bundle: the local id; pull_bundle: `<namespace>/<bundle_id>`. */
  readonly bundle_id?: unknown;
  readonly version?: unknown;
  readonly namespace?: unknown;
  readonly query?: unknown;
  readonly kind?: unknown;
  readonly limit?: unknown;
  /** Registry URL; else RYE_REGISTRY_URL, else the default. */
  readonly registry?: unknown;
  readonly force?: unknown;
  /** push: publish although the item declares another version. */
  readonly allow_version_mismatch?: unknown;
}

export type RegistryResult = Record<string, unknown> & { readonly ok: true };

export interface RegistryActionOptions {
  /** Environment for RYE_REGISTRY_URL, RYE_REGISTRY_TOKEN (and spaces, when `project` is a path). */
  readonly env?: Env;
  readonly fetch?: FetchFn;
  /** Told how push_bundle and pull_bundle go (the CLI draws a bar on a terminal). */
  readonly onProgress?: TransferProgressFn;
  /**
   * Verifies a pulled tool's chain so the pull pins it in a lockfile (the
   * executor's `prepareToPin`, wired by the caller); absent: a pull pins nothing.
   */
  readonly prepareToPin?: PrepareToPin;
}

/**
 * Run one registry action. Tokens come from RYE_REGISTRY_TOKEN or the user's
 * saved credentials, never from params (which land in transcripts).
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT for bad parameters, and the codes of
 *   pushItem, pullItem, pushBundle, pullBundle and search.
 */
export async function runRegistryAction(
  project: string | Spaces,
  params: RegistryParams,
  options: RegistryActionOptions = {},
): Promise<RegistryResult> {
  const env = options.env ?? process.env;
  const spaces = typeof project === 'string' ? resolveSpaces({ project, env }) : project;
  const action = params.action;
  if (typeof action !== 'string' || !(REGISTRY_ACTIONS as readonly string[]).includes(action))
    throw usage(`action must be one of ${REGISTRY_ACTIONS.join(', ')}`);
  const session = openSession({
    spaces,
    registry: optional(params.registry, 'registry'),
    env,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.prepareToPin === undefined ? {} : { prepareToPin: options.prepareToPin }),
  });
  const force = optionalBoolean(params.force, 'force');
  const version = optional(params.version, 'version');
  const namespace = optional(params.namespace, 'namespace');
  switch (action as RegistryAction) {
    case 'push':
      return pushItem(session, {
        itemType: required(params.item_type, 'item_type'),
        itemId: required(params.item_id, 'item_id'),
        version: required(params.version, 'version'),
        namespace,
        allowVersionMismatch: optionalBoolean(
          params.allow_version_mismatch,
          'allow_version_mismatch',
        ),
      });
    case 'pull':
      return pullItem(session, {
        itemType: required(params.item_type, 'item_type'),
        ref: required(params.item_id, 'item_id'),
        version,
        force,
      });
    case 'push_bundle':
      return pushBundle(session, {
        bundleId: required(params.bundle_id, 'bundle_id'),
        namespace,
        onProgress: options.onProgress,
      });
    case 'pull_bundle':
      return pullBundle(session, {
        ref: required(params.bundle_id, 'bundle_id'),
        version,
        force,
        onProgress: options.onProgress,
      });
    case 'search':
      return search(session, {
        query: optional(params.query, 'query'),
        itemType: optional(params.item_type, 'item_type'),
        namespace,
        kind: optional(params.kind, 'kind'),
        limit: optionalLimit(params.limit),
      });
  }
}

function required(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw usage(`${name} is required (a string)`);
  return value;
}

function optional(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw usage(`${name} must be a string`);
  return value === '' ? undefined : value;
}

function optionalBoolean(value: unknown, name: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw usage(`${name} must be true or false`);
  return value;
}

function optionalLimit(value: unknown): number | string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' && typeof value !== 'string') throw usage('limit must be a number');
  return value;
}

function usage(why: string): RyeError {
  return new RyeError('USAGE_INVALID_ARGUMENT', `Cannot run the registry action: ${why}`, {
    why,
  });
}

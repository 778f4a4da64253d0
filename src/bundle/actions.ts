import { RyeError } from '../errors/index.js';
import { readSigner, verifyText } from '../integrity/index.js';
import {
  keyDir,
  loadSpaceTrust,
  parseItemType,
  resolveSpaces,
  type Spaces,
} from '../items/index.js';
import { readTextFile } from '../platform/index.js';
import { createBundle } from './create.js';
import type { ProgressFn } from './hash-files.js';
import { listBundles, type ListedBundle } from './list.js';
import { MAX_MANIFEST_BYTES, parseManifest } from './manifest-parse.js';
import type { BundleInfo } from './types.js';
import { findManifest, verifyBundle, type BundleReport } from './verify.js';

/** The bundler's actions (seed 002): the CLI and the system tool both call this. */
export const BUNDLER_ACTIONS = ['create', 'verify', 'inspect', 'list'] as const;
export type BundlerAction = (typeof BUNDLER_ACTIONS)[number];

/** Parameters as the tool receives them (snake_case, JSON). */
export interface BundlerParams {
  readonly action?: unknown;
  readonly bundle_id?: unknown;
  readonly version?: unknown;
  /** `item_type:item_id`, e.g. `directive:apps/task-manager/build_crud_app`. */
  readonly entrypoint?: unknown;
  readonly description?: unknown;
  readonly include?: unknown;
  readonly exclude?: unknown;
  /** List every file of the app folders' `node_modules` (see CreateBundleInput). */
  readonly include_node_modules?: unknown;
  /** create: replace a manifest of the same version with other content. */
  readonly force?: unknown;
}

/** A JSON-ready result; `ok: false` (verify) carries the report and a message. */
export type BundlerResult = Record<string, unknown> & {
  readonly ok: boolean;
  readonly message?: string;
};

/**
 * Run one bundler action — the single code path behind `rye bundle …` and the
 * `rye/core/bundler/bundler` tool. `project` is a folder (spaces resolved from
 * it and the environment) or ready spaces.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT for bad parameters, and the codes of
 *   createBundle / verifyBundle / listBundles.
 */
export async function runBundlerAction(
  project: string | Spaces,
  params: BundlerParams,
  options: { onProgress?: ProgressFn } = {},
): Promise<BundlerResult> {
  const spaces = typeof project === 'string' ? resolveSpaces({ project }) : project;
  const action = params.action;
  if (typeof action !== 'string' || !(BUNDLER_ACTIONS as readonly string[]).includes(action)) {
    throw usage(`action must be one of ${BUNDLER_ACTIONS.join(', ')}`);
  }
  if (action === 'list') return { ok: true, bundles: (await listBundles(spaces)).map(listedJson) };
  const bundleId = requireString(params.bundle_id, 'bundle_id');
  if (action === 'create') {
    const created = await createBundle({
      spaces,
      bundleId,
      version: requireString(params.version, 'version'),
      entrypoint: parseEntrypoint(params.entrypoint),
      description: optionalString(params.description, 'description') ?? '',
      includes: stringList(params.include, 'include'),
      ...(params.exclude === undefined ? {} : { exclude: stringList(params.exclude, 'exclude') }),
      includeNodeModules: optionalBoolean(params.include_node_modules, 'include_node_modules'),
      force: optionalBoolean(params.force, 'force'),
      signer: await readSigner(keyDir(spaces)),
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    });
    return {
      ok: true,
      status: created.status,
      bundle_id: bundleId,
      version: created.manifest.bundle.version,
      path: created.path,
      files: created.fileCount,
      bytes: created.bytes,
    };
  }
  const { trust } = await loadSpaceTrust(spaces);
  if (action === 'verify') {
    const report = await verifyBundle({
      spaces,
      bundleId,
      trust,
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    });
    return reportJson(report);
  }
  return inspect(spaces, bundleId, trust);
}

/**
 * The verify report as JSON (snake_case, docs/json-output.md), with a one-line
 * message: `Bundle … verified` or why it was not.
 */
export function reportJson(report: BundleReport): BundlerResult {
  const f = report.files;
  const problems = [
    f.missing.length > 0 ? `${f.missing.length} missing` : '',
    f.tampered.length > 0 ? `${f.tampered.length} changed` : '',
    f.unlisted.length > 0 ? `${f.unlisted.length} unlisted` : '',
    f.badSignature.length > 0 ? `${f.badSignature.length} with a bad inline signature` : '',
  ].filter((p) => p !== '');
  const message = report.ok
    ? `Bundle ${report.bundleId} verified: ${f.ok.length} files`
    : report.manifest.ok
      ? `Cannot verify bundle ${report.bundleId}: ${problems.join(', ')}`
      : // A failed manifest check always has its code.
        `Cannot verify bundle ${report.bundleId}: its manifest failed (${report.manifest.code as string})`;
  const { badSignature, ...rest } = report.counts;
  return {
    ok: report.ok,
    bundle_id: report.bundleId,
    version: report.version,
    space: report.space,
    manifest_path: report.manifestPath,
    manifest: report.manifest,
    files: {
      ok: f.ok,
      missing: f.missing,
      tampered: f.tampered,
      unlisted: f.unlisted,
      bad_signature: f.badSignature,
    },
    counts: { ...rest, bad_signature: badSignature },
    message,
  };
}

/** One listed manifest as JSON: `{bundle_id, space, path, version?, file_count?, error?}`. */
function listedJson(b: ListedBundle): Record<string, unknown> {
  return {
    bundle_id: b.bundleId,
    space: b.space,
    path: b.path,
    ...(b.version === undefined ? {} : { version: b.version }),
    ...(b.fileCount === undefined ? {} : { file_count: b.fileCount }),
    ...(b.error === undefined ? {} : { error: b.error }),
  };
}

/** The manifest's `bundle` block as the manifest spells it (snake_case). */
function bundleInfoJson(info: BundleInfo): Record<string, unknown> {
  return {
    id: info.id,
    version: info.version,
    created_at: info.createdAt,
    entrypoint:
      info.entrypoint === null
        ? null
        : { item_type: info.entrypoint.itemType, item_id: info.entrypoint.itemId },
    description: info.description,
    includes: info.includes,
  };
}

async function inspect(
  spaces: Spaces,
  bundleId: string,
  trust: Awaited<ReturnType<typeof loadSpaceTrust>>['trust'],
): Promise<BundlerResult> {
  const { space, path } = await findManifest(spaces, bundleId, 'inspect');
  const text = await readTextFile(path, MAX_MANIFEST_BYTES);
  const signature = verifyText(text, {
    itemType: 'tool',
    extension: '.yaml',
    trust,
    path,
    subject: { itemId: bundleId, itemType: 'bundle' },
  });
  const manifest = parseManifest(text, path);
  return {
    ok: true,
    space,
    path,
    bundle: bundleInfoJson(manifest.bundle),
    signature: {
      ok: signature.ok,
      verdict: signature.verdict,
      code: signature.code,
      fingerprint: signature.fingerprint,
      signer: signature.signer,
    },
    files: [...manifest.files].map(([file, entry]) => ({
      path: file,
      sha256: entry.sha256,
      inline_signed: entry.inlineSigned,
    })),
  };
}

function parseEntrypoint(
  value: unknown,
): { itemType: 'directive' | 'tool' | 'knowledge'; itemId: string } | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || !value.includes(':'))
    throw usage('entrypoint must look like item_type:item_id');
  const at = value.indexOf(':');
  return { itemType: parseItemType(value.slice(0, at)), itemId: value.slice(at + 1) };
}

function requireString(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw usage(`${name} is required`);
  return value;
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw usage(`${name} must be a string`);
  return value;
}

function optionalBoolean(value: unknown, name: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw usage(`${name} must be true or false`);
  return value;
}

function stringList(value: unknown, name: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw usage(`${name} must be a list of strings`);
  return value as string[];
}

function usage(why: string): RyeError {
  return new RyeError('USAGE_INVALID_ARGUMENT', `Cannot run the bundler: ${why}`, {});
}

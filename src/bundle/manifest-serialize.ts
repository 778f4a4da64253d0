/**
 * Write a bundle manifest body (seed 002, "Layer 2") in one stable form: fixed
 * key order, files sorted by path, always the map form of `files`.
 */
import { stringify } from 'yaml';
import { writeFilesFast } from './manifest-fast.js';
import { comparePaths } from './manifest-path.js';
import { parseManifest } from './manifest-parse.js';
import type { BundleManifest, ManifestEntry } from './types.js';

/** The `yaml` options of the one stable form. */
const STRINGIFY_OPTIONS = {
  schema: 'core',
  // Python reads manifests with PyYAML (YAML 1.1): quote what it would mis-type.
  compat: 'yaml-1.1',
  lineWidth: 0,
  singleQuote: true,
  // yaml 2.x mis-writes some block scalars (`' \n'` as `|+`); quoted strings always round-trip.
  blockQuote: false,
  indent: 2,
} as const;

/**
 * The manifest body WITHOUT a signature line (signing adds the `#` line).
 * Keys in the order `bundle{id, version, created_at, entrypoint, description,
 * includes}`, `files{<path>{sha256, inline_signed}}`; files in code-point
 * order; no line folding; a string is quoted whenever YAML 1.2 core or YAML 1.1
 * (PyYAML) would read it as something else (`'2026-02-11T00:00:00Z'`, `'on'`).
 * Deterministic: equal manifests give equal bytes, and
 * `parseManifest(serializeManifest(m))` deep-equals `m` (files sorted).
 *
 * The output is parsed back before it is returned, so a manifest this writes
 * is always one {@link parseManifest} accepts.
 *
 * @throws RyeError BUNDLE_MANIFEST_INVALID when `manifest` breaks the rules
 *   parseManifest enforces (bad path, hash, id, version…).
 */
export function serializeManifest(manifest: BundleManifest): string {
  return serializeManifestWith(manifest);
}

/**
 * {@link serializeManifest}; `fast: false` writes `files` with `yaml` too
 * (same bytes, tests compare). By default the `files` section is written by
 * hand when every path and hash fits the fast layout (see `manifest-fast.ts`)
 * — the exact bytes `yaml` writes for it — and with `yaml` otherwise.
 */
export function serializeManifestWith(
  manifest: BundleManifest,
  options: { readonly fast?: boolean } = {},
): string {
  const { bundle } = manifest;
  const rows: [string, ManifestEntry][] = [...manifest.files].sort(([a], [b]) =>
    comparePaths(a, b),
  );
  const bundleBody = {
    id: bundle.id,
    version: bundle.version,
    created_at: bundle.createdAt,
    entrypoint:
      bundle.entrypoint === null
        ? null
        : { item_type: bundle.entrypoint.itemType, item_id: bundle.entrypoint.itemId },
    description: bundle.description,
    includes: [...bundle.includes],
  };
  const fastFiles = options.fast === false ? undefined : writeFilesFast(rows);
  let text: string;
  if (fastFiles !== undefined) {
    text = stringify({ bundle: bundleBody }, STRINGIFY_OPTIONS) + fastFiles;
  } else {
    // A Map keeps insertion order for every key (a plain object would move
    // integer-like paths first and treat `__proto__` specially).
    const files = new Map<string, { sha256: string; inline_signed: boolean }>();
    for (const [path, entry] of rows)
      files.set(path, { sha256: entry.sha256, inline_signed: entry.inlineSigned });
    text = stringify({ bundle: bundleBody, files }, STRINGIFY_OPTIONS);
  }
  parseManifest(text, 'the serialized manifest');
  return text;
}

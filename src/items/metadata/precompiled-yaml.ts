/**
 * The system space's YAML tool files (runtimes, primitives) change only with a
 * release, so the CLI bundle carries them already parsed: scripts/build-cli.mjs
 * reads each one with readToolYaml, the function run time would use, and
 * compiles the results into the bundle as this table. `rye execute` then runs
 * no YAML parser for them, and loads none.
 *
 * Authenticated by construction: an entry is keyed by {@link metadataKey}, the
 * SHA-256 of the exact body it was parsed from, so it can only ever stand for
 * those bytes (the executor looks it up with a body it has just verified); a
 * body changed by one byte misses and is parsed as before. The table is code,
 * as trusted as the executor that reads it, never a file read at run time. The
 * library build (dist/src) has no table and always parses.
 */
import { sha256Hex } from '../../integrity/index.js';

/**
 * Replaced by the bundler (esbuild `define`) with the table's JSON text, an
 * object of key → JSON text of one document; undeclared in the library build.
 */
declare const RYE_PRECOMPILED_YAML: string | undefined;

let table: Readonly<Record<string, string>> | undefined;

/** The key of a parsed item body: type, extension and the SHA-256 of the body. */
export function metadataKey(itemType: string, extension: string, body: string): string {
  return `${itemType}\0${extension}\0${sha256Hex(body)}`;
}

/** The precompiled YAML document of the body with this key (a fresh copy), or undefined. */
export function precompiledYaml(key: string): unknown {
  table ??=
    typeof RYE_PRECOMPILED_YAML === 'string'
      ? (JSON.parse(RYE_PRECOMPILED_YAML) as Record<string, string>)
      : {};
  const text = Object.hasOwn(table, key) ? table[key] : undefined;
  return text === undefined ? undefined : JSON.parse(text);
}

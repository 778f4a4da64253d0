import { compareCodePoints, writeJsonSignature } from '../integrity/index.js';
import { RyeError, isRyeError } from '../errors/index.js';
import { parseLockfile } from './parse.js';
import type { Lockfile } from './types.js';

/** The signature field of a signed lockfile (the JSON row of the signature format table). */
export const LOCKFILE_SIGNATURE_FIELD = '_signature';
const FIELD = LOCKFILE_SIGNATURE_FIELD;

/**
 * The exact on-disk text of a lockfile: keys in the fixed order `lockfile_version,
 * generated_at, root{tool_id, version, integrity}, resolved_chain[{item_id, space,
 * tool_type, executor_id, integrity}], registry`, then on v2 `verified_deps{anchor_path,
 * scope, files}` with files sorted by path in code-point order; 2-space indent,
 * final LF, and `_signature` first when `signature` is set — the same form
 * signing produces (`writeJsonSignature`), so signing a serialized lockfile only
 * adds its first key. Deterministic: equal lockfiles give equal bytes.
 *
 * Guarantees `parseLockfile(serializeLockfile(x))` deep-equals x and that
 * serializing the result again gives the same text.
 *
 * @throws RyeError LOCKFILE_INVALID when the lockfile would not parse back
 *   (e.g. a bad hash, or verifiedDeps on v1).
 */
export function serializeLockfile(lockfile: Lockfile): string {
  const { root, verifiedDeps } = lockfile;
  // Members are written as text, not as one object: JavaScript objects put
  // integer-like keys ("10", "9") first whatever the insertion order.
  const members = [
    member('lockfile_version', lockfile.lockfileVersion),
    member('generated_at', lockfile.generatedAt),
    member('root', { tool_id: root.toolId, version: root.version, integrity: root.integrity }),
    member(
      'resolved_chain',
      lockfile.resolvedChain.map((e) => ({
        item_id: e.itemId,
        space: e.space,
        tool_type: e.toolType,
        executor_id: e.executorId,
        integrity: e.integrity,
      })),
    ),
    member('registry', lockfile.registry),
  ];
  if (verifiedDeps !== undefined) {
    const files = Object.keys(verifiedDeps.files)
      .sort(compareCodePoints)
      .map((path) => member(path, verifiedDeps.files[path]));
    const deps = [
      member('anchor_path', verifiedDeps.anchorPath),
      member('scope', verifiedDeps.scope),
      `"files":{${files.join(',')}}`,
    ];
    members.push(`"verified_deps":{${deps.join(',')}}`);
  }
  try {
    const source = 'lockfile';
    const text = writeJsonSignature(`{${members.join(',')}}`, FIELD, lockfile.signature, source);
    parseLockfile(text, source);
    return text;
  } catch (error) {
    // Only a value outside the Lockfile type (undefined, a bad hash…) gets here.
    // Defensive: writeJsonSignature and parseLockfile throw only RyeErrors.
    /* v8 ignore if */
    if (!isRyeError(error)) throw error;
    const issues = error.details['issues'];
    const why = Array.isArray(issues) ? issues.slice(0, 3).join('; ') : error.message;
    throw new RyeError(
      'LOCKFILE_INVALID',
      `Cannot serialize the lockfile of ${root.toolId}@${root.version}: ${why}`,
      error.details,
      { cause: error },
    );
  }
}

function member(key: string, value: unknown): string {
  return `${JSON.stringify(key)}:${JSON.stringify(value)}`;
}

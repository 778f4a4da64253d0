import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { RyeError } from '../../errors/index.js';
import { hexDigestsEqual, sha256Hex } from '../../integrity/index.js';
import { messageOf, readOpenFileSync } from '../../platform/index.js';
import type { AnyPayload, StoredEvent } from './event.js';

/** A payload field moved out of its event: `{"$artifact":"sha256:<hex>","bytes":n}`. */
export interface ArtifactRef {
  readonly $artifact: string;
  readonly bytes: number;
}

/** The largest field a transcript keeps (64 MiB); larger is TRANSCRIPT_EVENT_TOO_LARGE. */
export const MAX_ARTIFACT_BYTES = 64 * 1024 * 1024;
const REF_VALUE = /^sha256:([0-9a-f]{64})$/;

/**
 * True for a value shaped like an artifact reference (any object with a
 * `$artifact` key counts, so the writer spills look-alikes instead of letting
 * them pass as references). Pure.
 */
export function looksLikeArtifactRef(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && '$artifact' in value
  );
}

/** The hex digest of a well-formed reference, or undefined. Pure. */
export function artifactDigest(value: unknown): string | undefined {
  if (!looksLikeArtifactRef(value)) return undefined;
  const ref = value as Record<string, unknown>;
  if (Object.keys(ref).length !== 2 || !Number.isSafeInteger(ref['bytes'])) return undefined;
  const bytes = ref['bytes'] as number;
  if (bytes < 0 || bytes > MAX_ARTIFACT_BYTES) return undefined;
  const match = typeof ref['$artifact'] === 'string' ? REF_VALUE.exec(ref['$artifact']) : null;
  return match?.[1];
}

/**
 * Store `json` (a payload field's JSON text) as `<dir>/<sha256>`: temp file,
 * fsync, rename, mode 0600. An existing artifact is kept when it verifies.
 *
 * @throws RyeError TRANSCRIPT_EVENT_TOO_LARGE over {@link MAX_ARTIFACT_BYTES};
 *   FILE_WRITE_FAILED.
 */
export function writeArtifactSync(dir: string, json: string): ArtifactRef {
  const bytes = Buffer.from(json, 'utf8');
  if (bytes.length > MAX_ARTIFACT_BYTES) {
    throw new RyeError(
      'TRANSCRIPT_EVENT_TOO_LARGE',
      `Cannot spill a payload field of ${bytes.length} bytes: artifacts stop at ${MAX_ARTIFACT_BYTES}`,
      { bytes: bytes.length, max: MAX_ARTIFACT_BYTES },
    );
  }
  const hex = sha256Hex(bytes);
  const ref: ArtifactRef = { $artifact: `sha256:${hex}`, bytes: bytes.length };
  const path = join(dir, hex);
  try {
    readArtifactBytes(dir, hex, bytes.length, -1);
    return ref;
  } catch {
    // missing or damaged: (re)write it below
  }
  const temp = join(dir, `.${hex}.${process.pid}.tmp`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const fd = openSync(temp, 'w', 0o600);
    try {
      let done = 0;
      while (done < bytes.length) done += writeSync(fd, bytes, done);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw new RyeError(
      'FILE_WRITE_FAILED',
      `Cannot write artifact ${path}: ${messageOf(error)}`,
      { path },
      { cause: error },
    );
  }
  return ref;
}

/**
 * The verified bytes of an artifact: a regular file of exactly `size` bytes
 * whose SHA-256 is `hex` (the size is checked before anything is read).
 *
 * @throws RyeError TRANSCRIPT_TAMPERED naming `seq` when it is missing, another
 *   size, or another content.
 */
export function readArtifactBytes(dir: string, hex: string, size: number, seq: number): Buffer {
  const path = join(dir, hex);
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
    );
  } catch (error) {
    throw tampered(seq, hex, `it cannot be opened (${messageOf(error)})`);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw tampered(seq, hex, 'it is not a regular file');
    if (info.size !== size) throw tampered(seq, hex, `it has ${info.size} bytes, not ${size}`);
    const bytes = readOpenFileSync(fd, size);
    if (bytes.length !== size || !hexDigestsEqual(sha256Hex(bytes), hex)) {
      throw tampered(seq, hex, 'its content does not match its SHA-256');
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/**
 * Events with every artifact reference in a payload's top-level fields
 * replaced by the verified value it names. The input is not changed.
 *
 * @throws RyeError TRANSCRIPT_TAMPERED naming the seq of the event whose
 *   artifact is missing, altered or not JSON.
 */
export function resolveArtifacts(events: readonly StoredEvent[], dir: string): StoredEvent[] {
  return events.map((event) => {
    let payload: Record<string, unknown> | undefined;
    // for…in, not Object.entries: no pair arrays for the thousands of events without a reference.
    for (const key in event.payload) {
      if (!Object.hasOwn(event.payload, key)) continue;
      const value = event.payload[key];
      if (!looksLikeArtifactRef(value)) continue;
      const hex = artifactDigest(value);
      if (hex === undefined)
        throw tampered(event.seq, null, `field ${key} is a malformed artifact reference`);
      const bytes = readArtifactBytes(dir, hex, (value as ArtifactRef).bytes, event.seq);
      payload ??= { ...event.payload };
      try {
        payload[key] = JSON.parse(bytes.toString('utf8')) as unknown;
      } catch {
        throw tampered(event.seq, hex, 'it is not JSON');
      }
    }
    return payload === undefined ? event : { ...event, payload: payload as AnyPayload };
  });
}

function tampered(seq: number, hex: string | null, why: string): RyeError {
  return new RyeError(
    'TRANSCRIPT_TAMPERED',
    `Cannot trust the transcript at seq ${seq}: artifact ${hex ?? '?'}: ${why}`,
    { seq, artifact: hex, reason: 'artifact' },
  );
}

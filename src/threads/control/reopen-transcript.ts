import type { Signer, TrustSet } from '../../integrity/index.js';
import type { Clock } from '../../ids/index.js';
import type { ThreadPaths } from '../store/index.js';
import {
  macKeyring,
  readTranscriptBytes,
  repairTranscript,
  resolveArtifacts,
  splitLines,
  verifyTranscript,
  type StoredEvent,
} from '../transcript/index.js';

export interface ReopenedTranscript {
  /** Open for appending after the repaired tail; the caller closes it. */
  readonly writer: ReturnType<typeof repairTranscript>['writer'];
  /** Every event, the repair's included, artifacts resolved: what rebuildThread reads. */
  readonly events: readonly StoredEvent[];
}

/**
 * Reopen a thread's transcript to write after it (resume, rebase, a cancel
 * sealed for a dead owner): read, verify every link and checkpoint against
 * `trust` and every unsealed event's MAC, repair a torn tail and answer dangling calls (repairTranscript),
 * then resolve the events' artifacts. Nothing is written when verification
 * fails.
 *
 * @throws RyeError TRANSCRIPT_TAMPERED, TRANSCRIPT_INVALID, and the artifact codes
 */
export function reopenTranscript(
  paths: ThreadPaths,
  keys: { readonly trust: TrustSet; readonly signer: Signer; readonly clock: Clock },
): ReopenedTranscript {
  const verified = verifyTranscript(splitLines(readTranscriptBytes(paths.transcript)), {
    thread: paths.threadId,
    trust: keys.trust,
    mac: macKeyring(keys.signer),
  });
  const repaired = repairTranscript({
    path: paths.transcript,
    artifactsDir: paths.artifacts,
    thread: paths.threadId,
    clock: keys.clock,
    signer: keys.signer,
    verified,
  });
  try {
    const events = resolveArtifacts([...verified.events, ...repaired.appended], paths.artifacts);
    return { writer: repaired.writer, events };
  } catch (error) {
    repaired.writer.close();
    throw error;
  }
}

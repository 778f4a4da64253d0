import { watch, type FSWatcher } from 'node:fs';
import type { TrustSet } from '../../integrity/index.js';
import {
  FINISHED_STATUSES,
  RegistryDb,
  checkThreadDir,
  isLive,
  readThreadRecord,
  registryDbPath,
  threadMacKeyring,
  threadPaths,
  treeOwnerAlive,
} from '../store/index.js';
import {
  readTranscriptBytes,
  splitLines,
  verifyTranscript,
  type MacKeyring,
  type StoredEvent,
} from '../transcript/index.js';

/** The polling fallback of `--follow` when no file event arrives (fs.watch is best effort). */
export const TAIL_POLL_MS = 250;

export interface TailInput {
  readonly projectRoot: string;
  readonly threadId: string;
  readonly trust: TrustSet;
  /** The user's MAC keys: without them, nothing after the last checkpoint is yielded. */
  readonly mac: MacKeyring | null;
  /** Keep yielding new events until the thread ends. */
  readonly follow?: boolean;
  /** Ends a follow early. */
  readonly signal?: AbortSignal;
  readonly pollMs?: number;
}

/**
 * A thread's transcript events in seq order, each read only after the whole
 * transcript up to it verified (chain and checkpoints, against `trust`; the
 * record first). With `follow`, waits for more (fs.watch on the thread's
 * folder, polling every 250 ms as a fallback) and re-verifies on every change,
 * until the registry says the thread ended or its owner died; then a last
 * read, so the terminal event is always yielded. Payloads come as stored
 * (artifact references are not resolved); the caller redacts for display.
 *
 * @throws RyeError THREAD_ID_INVALID, THREAD_NOT_FOUND, THREAD_RECORD_INVALID,
 *   TRANSCRIPT_TAMPERED (naming the seq), TRANSCRIPT_INVALID
 */
export async function* tailTranscript(input: TailInput): AsyncGenerator<StoredEvent> {
  const paths = threadPaths(input.projectRoot, input.threadId);
  checkThreadDir(input.projectRoot, paths);
  const record = await readThreadRecord(paths, input.trust);
  // A finished thread accepts no event after its final checkpoint.
  const finished = FINISHED_STATUSES.has(record.status);
  const mac = await threadMacKeyring(paths, input.trust, input.mac);
  let next = 0;
  const read = function* (): Generator<StoredEvent> {
    const verified = verifyTranscript(splitLines(readTranscriptBytes(paths.transcript)), {
      thread: paths.threadId,
      trust: input.trust,
      mac,
      requireSealed: finished,
    });
    for (const event of verified.events) {
      if (event.seq < next) continue;
      next = event.seq + 1;
      yield event;
    }
  };
  if (input.follow !== true) {
    yield* read();
    return;
  }
  const registry = RegistryDb.open(registryDbPath(input.projectRoot));
  let wake: (() => void) | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(paths.dir, () => wake?.());
    watcher.unref();
  } catch {
    watcher = undefined; // no inotify here: polling alone
  }
  try {
    for (;;) {
      const status = registry.get(paths.threadId)?.status;
      const ended =
        status === undefined ||
        !isLive(status) ||
        !treeOwnerAlive(input.projectRoot, record.tree) ||
        input.signal?.aborted === true;
      yield* read();
      if (ended) return;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          wake = undefined;
          input.signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, input.pollMs ?? TAIL_POLL_MS);
        wake = done;
        input.signal?.addEventListener('abort', done, { once: true });
      });
    }
  } finally {
    watcher?.close();
    registry.close();
  }
}

import { z } from 'zod';
import { loadTrustStore } from '../../integrity/index.js';
import { trustStores } from '../../items/index.js';
import {
  FINISHED_STATUSES,
  readThreadRecord,
  checkThreadDir,
  threadMacKeyring,
  threadPaths,
  userMacKeyring,
} from '../store/index.js';
import {
  readTranscriptBytes,
  redactJson,
  resolveArtifacts,
  splitLines,
  verifyTranscript,
} from '../transcript/index.js';
import { parseOperationInput, type OperationContext } from '../../ops/index.js';
import { requireReachable } from '../store/thread-reach.js';

const ID = 'rye/agent/threads/read_transcript';
/** Events per call by default, and at most. */
export const TRANSCRIPT_PAGE = 100;
export const MAX_TRANSCRIPT_PAGE = 1000;

export const readTranscriptParams = z.strictObject({
  thread_id: z.string().min(1).max(200).describe('the thread whose transcript to read'),
  from_seq: z.number().int().min(0).optional().describe('the first event seq to return (0)'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_TRANSCRIPT_PAGE)
    .optional()
    .describe(`at most this many events (${TRANSCRIPT_PAGE})`),
});

/**
 * `rye/agent/threads/read_transcript {thread_id, from_seq?, limit?}`: a page of
 * the thread's events after the whole chain and every checkpoint verified
 * (a live thread's unsealed tail is included and counted), artifacts resolved
 * and checked, capability tokens redacted. `next_seq` continues the reading;
 * it is null at the end.
 *
 * @throws RyeError OPERATION_INPUT_INVALID, THREAD_ID_INVALID, THREAD_NOT_FOUND,
 *   THREAD_RECORD_INVALID, TRANSCRIPT_TAMPERED, TRANSCRIPT_INVALID, CAPABILITY_DENIED
 */
export async function readTranscriptTool(
  ctx: OperationContext,
  params: unknown,
  caller?: string,
): Promise<unknown> {
  const input = parseOperationInput('execute', readTranscriptParams, params);
  // Reach first: a thread outside the subtree gets the same answer whether it exists or not.
  requireReachable(ctx.spaces.project, ID, input.thread_id, caller);
  const paths = threadPaths(ctx.spaces.project, input.thread_id);
  checkThreadDir(ctx.spaces.project, paths);
  const { trust } = await loadTrustStore(trustStores(ctx.spaces));
  // The record first: a transcript is read only for a thread whose record verifies.
  const record = await readThreadRecord(paths, trust);
  const verified = verifyTranscript(splitLines(readTranscriptBytes(paths.transcript)), {
    thread: paths.threadId,
    trust,
    mac: await threadMacKeyring(paths, trust, await userMacKeyring(ctx.spaces)),
    requireSealed: FINISHED_STATUSES.has(record.status),
  });
  const from = input.from_seq ?? 0;
  const limit = input.limit ?? TRANSCRIPT_PAGE;
  const page = verified.events.filter((e) => e.seq >= from).slice(0, limit);
  const last = verified.events.at(-1)?.seq ?? -1;
  const nextSeq = page.length === 0 ? null : (page.at(-1)?.seq ?? -1) + 1;
  const answer = {
    thread_id: paths.threadId,
    events: resolveArtifacts(page, paths.artifacts),
    next_seq: nextSeq !== null && nextSeq <= last ? nextSeq : null,
    last_seq: last,
    unsealed: verified.unsealed,
  };
  return JSON.parse(redactJson(JSON.stringify(answer)));
}

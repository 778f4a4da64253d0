import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { fixedClock, newThreadId } from '../../../src/ids/index.js';
import {
  TranscriptWriter,
  macKeyring,
  splitLines,
  verifyTranscript,
  type VerifiedTranscript,
} from '../../../src/threads/transcript/index.js';
import { makeSigner } from '../../helpers/keys.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export const user = makeSigner('user');
export const stranger = makeSigner('stranger');
/** The user's transcript MAC keys. */
export const userMac = macKeyring(user.signer);

/** A thread folder with a fresh transcript that holds `thread_created`. */
export function newTranscript(leaf = 'implement_feature'): {
  dir: string;
  path: string;
  artifacts: string;
  thread: string;
  clock: ReturnType<typeof fixedClock>;
  writer: TranscriptWriter;
} {
  const dir = mkdtempSync(join(tmpdir(), 'rye-transcript-'));
  dirs.push(dir);
  const clock = fixedClock(1_767_225_600_000, 1);
  const thread = newThreadId(leaf, fixedClock(1_767_225_600_000), (n) => new Uint8Array(n).fill(7));
  const artifacts = join(dir, 'artifacts');
  mkdirSync(artifacts);
  const path = join(dir, 'transcript.jsonl');
  const writer = TranscriptWriter.open({
    path,
    artifactsDir: artifacts,
    thread,
    clock,
    head: null,
    mac: userMac,
  });
  writer.append('thread_created', {
    directive: { id: `apps/${leaf}`, content_sha256: 'ab'.repeat(32), coverage: 'full' },
    inputs: { feature: 'login' },
    parent: null,
    tree: thread,
    depth: 0,
    caps: ['rye.execute.tool.rye/file-system/*'],
    caps_dropped: [],
    token: { jti: '00'.repeat(16), exp: 1_767_312_000 },
    limits: { turns: 25, spend: '1.00' },
    model: { provider: 'anthropic', id: 'claude-sonnet-4-20250514' },
    hooks_admitted: [],
  });
  return { dir, path, artifacts, thread, clock, writer };
}

/** Verify the transcript at `path` against the user's key. */
export function verifyFile(
  path: string,
  thread: string,
  requireSealed = false,
): VerifiedTranscript {
  return verifyTranscript(splitLines(readFileSync(path)), {
    thread,
    trust: user.trust,
    mac: userMac,
    requireSealed,
  });
}

/** Write a turn: a model answer with tool calls, then their results in the given order. */
export function writeTurn(
  writer: TranscriptWriter,
  calls: readonly string[],
  resultOrder: readonly string[] = calls,
  usage = { in: 100, out: 20 },
): void {
  writer.append('cognition_out', {
    content: [
      { type: 'text', text: 'working' },
      ...calls.map((id) => ({
        type: 'tool_call' as const,
        id,
        name: 'rye_execute',
        input: { item_id: id },
      })),
    ],
    stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn',
    usage,
    cost_nanos: 600,
    provider_msg_id: 'msg_1',
  });
  for (const id of resultOrder) {
    writer.append('tool_call_start', {
      call_id: id,
      name: 'rye_execute',
      input: {},
      required_cap: null,
    });
  }
  for (const id of resultOrder) {
    writer.append('tool_call_result', {
      call_id: id,
      ok: true,
      output: { id },
      bytes: 10,
      truncated: false,
    });
  }
}

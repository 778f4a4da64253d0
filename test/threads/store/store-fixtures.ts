import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { fixedClock, newThreadId } from '../../../src/ids/index.js';
import type { ThreadRecord } from '../../../src/threads/store/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A throwaway project folder. */
export function tempProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rye-threads-'));
  dirs.push(dir);
  return dir;
}

let n = 0;
export function threadId(leaf = 'build_crud_app'): string {
  n += 1;
  const k = n;
  return newThreadId(leaf, fixedClock(1_767_225_600_000 + k), (size) =>
    new Uint8Array(size).fill(k & 0xff),
  );
}

export function record(id: string, overrides: Partial<ThreadRecord> = {}): ThreadRecord {
  return {
    thread_id: id,
    tree: id,
    parent: null,
    depth: 0,
    directive: {
      id: 'apps/build_crud_app',
      space: 'project',
      content_sha256: 'ab'.repeat(32),
      coverage: 'full',
    },
    inputs: { name: 'todo' },
    model: { provider: 'anthropic', id: 'claude-sonnet-4-20250514' },
    limits: { turns: 25, spend: '1.00' },
    caps: ['rye.execute.directive.apps/*'],
    caps_dropped: [],
    token: { jti: '0f'.repeat(16), exp: 1_767_312_000 },
    hooks_admitted: [],
    status: 'running',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    cost: { turns: 0, tokens_in: 0, tokens_out: 0, spend_nanos: 0, tool_calls: 0, spawns: 0 },
    ...overrides,
  };
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTrustStore } from '../../src/integrity/index.js';
import { trustStores } from '../../src/items/index.js';
import { RegistryDb, registryDbPath, threadPaths } from '../../src/threads/store/index.js';
import { splitLines, verifyTranscript } from '../../src/threads/transcript/index.js';
import { rye, type CliResult } from '../helpers/cli.js';
import {
  startScriptedProvider,
  type ScriptEntry,
  type ScriptedProvider,
} from '../support/scripted-provider/index.js';
import {
  makeExampleProject,
  type ExampleProject,
} from '../support/task-manager/example-project.js';

/** What `rye execute directive --json` prints (the MCP result shape). */
export interface ThreadResult {
  status: 'success' | 'error';
  thread_id: string;
  data?: Record<string, unknown>;
  summary?: string;
  error?: { code: string; message: string };
  cost: { turns: number; tokens_in: number; tokens_out: number; spend_usd: string };
}

export interface ExampleRun extends ExampleProject {
  readonly server: ScriptedProvider;
  /** `rye execute directive apps/task-manager/<name> --inputs <json> --json` in the project. */
  directive(
    name: string,
    inputs: Record<string, unknown>,
  ): Promise<CliResult & { doc: ThreadResult }>;
  /** The thread's events, after verifying the chain and checkpoints against the user's trust. */
  events(threadId: string): Promise<{ type: string; payload: Record<string, unknown> }[]>;
  close(): Promise<void>;
}

/**
 * The example, signed in a temp project (or in `project`, whose items are
 * already there), with a scripted provider of its own playing `script`.
 */
export async function exampleRun(
  script: readonly ScriptEntry[],
  project?: ExampleProject,
): Promise<ExampleRun> {
  const p = project ?? (await makeExampleProject());
  const server = await startScriptedProvider({ script });
  const env = { ...p.env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url };
  return {
    ...p,
    env,
    server,
    async directive(name, inputs) {
      const res = await rye(
        [
          'execute',
          'directive',
          `apps/task-manager/${name}`,
          '--inputs',
          JSON.stringify(inputs),
          '--json',
          '--project',
          p.project,
        ],
        { env },
      );
      let doc: ThreadResult;
      try {
        doc = res.json<ThreadResult>();
      } catch {
        throw new Error(`no JSON from rye (exit ${res.code}): ${res.stdout}\n${res.stderr}`);
      }
      return { ...res, doc };
    },
    async events(threadId) {
      const bytes = readFileSync(threadPaths(p.project, threadId).transcript);
      const { trust } = await loadTrustStore(trustStores(p.spaces));
      const verified = verifyTranscript(splitLines(bytes), {
        thread: threadId,
        trust,
        mac: null,
        requireSealed: true,
      });
      return verified.events.map((e) => ({
        type: e.type,
        payload: e.payload as Record<string, unknown>,
      }));
    },
    close: () => server.close(),
  };
}

/** `rye thread tree --json`, one node. */
export interface TreeView {
  thread_id: string;
  directive_id: string;
  edge: string | null;
  status: string;
  depth: number;
  caps_dropped: string[];
  children: TreeView[];
}

/** A thread's tree, through the CLI. */
export async function threadTree(p: ExampleRun, threadId: string): Promise<TreeView> {
  const res = await rye(['thread', 'tree', threadId, '--project', p.project, '--json'], {
    env: p.env,
  });
  if (res.code !== 0) throw new Error(`rye thread tree ${threadId}: ${res.stderr}`);
  return res.json<{ tree: TreeView }>().tree;
}

/** The tool results of a thread, in order, with the call's item id. */
export function toolResults(events: { type: string; payload: Record<string, unknown> }[]) {
  const starts = new Map<string, unknown>();
  for (const e of events)
    if (e.type === 'tool_call_start')
      starts.set(e.payload['call_id'] as string, e.payload['input']);
  return events
    .filter((e) => e.type === 'tool_call_result')
    .map((e) => ({
      input: starts.get(e.payload['call_id'] as string) as
        { item_id?: string; parameters?: Record<string, unknown> } | undefined,
      ok: e.payload['ok'] as boolean,
      output: e.payload['output'] as Record<string, unknown> | undefined,
      error: e.payload['error'] as { code: string; message: string } | undefined,
    }));
}

export const appPath = (p: ExampleProject, ...parts: string[]) =>
  join(p.project, 'task-manager', ...parts);

/** The registry's edges from a thread, `[child, kind]`, in creation order. */
export function registryEdges(p: ExampleProject, threadId: string): [string, string][] {
  const db = RegistryDb.open(registryDbPath(p.project));
  try {
    return db.edgesFrom(threadId).map((e) => [e.childId, e.kind]);
  } finally {
    db.close();
  }
}

/**
 * The daemon sandbox ids of `rye sandbox list` in the project's user space:
 * what dev_server started and has not stopped.
 */
export async function runningDaemons(p: ExampleProject): Promise<string[]> {
  const res = await rye(['sandbox', 'list', '--project', p.project, '--json'], { env: p.env });
  if (res.code !== 0) throw new Error(`rye sandbox list failed: ${res.stderr}`);
  return res.json<{ daemons: { id: string }[] }>().daemons.map((d) => d.id);
}

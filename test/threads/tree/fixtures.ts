import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { loadTrustStore, readSigner } from '../../../src/integrity/index.js';
import { keyDir, trustStores } from '../../../src/items/index.js';
import { operatorAuthority } from '../../../src/capabilities/index.js';
import { returnSchemaOf } from '../../../src/threads/directive/index.js';
import type { Clock, RandomSource } from '../../../src/ids/index.js';
import type { DirectiveProgram } from '../../../src/items/index.js';
import { resumeThread } from '../../../src/threads/control/index.js';
import { runThread } from '../../../src/threads/tree/index.js';
import { type ThreadResult } from '../../../src/threads/loop/index.js';
import { loadOperation } from '../../../src/ops/index.js';
import { planDirectiveOperation } from '../../../src/threads/admission/index.js';
import {
  createProviderClient,
  selectProvider,
  type ProviderClient,
} from '../../../src/threads/providers/index.js';
import {
  RegistryDb,
  readThreadRecord,
  registryDbPath,
  threadPaths,
  type ThreadRecord,
} from '../../../src/threads/store/index.js';
import { makeExecProject, type ExecProject } from '../../helpers/exec-project.js';
import { hostPidOf } from '../../helpers/process-alive.js';
import {
  startScriptedProvider,
  type ScriptEntry,
  type ScriptedProvider,
} from '../../support/scripted-provider/index.js';
import { THREADS_PORT } from '../../../src/threads/root/index.js';

/** A directive, as the fixtures write them. */
export function directive(options: {
  name: string;
  permissions: string;
  limits?: string;
  input?: string;
  output?: string;
  model?: string;
}): string {
  const input = options.input ?? 'part';
  const output = options.output ?? 'answer';
  return `# ${options.name}

\`\`\`xml
<directive name="${options.name}" version="1.0.0">
  <metadata>
    <description>Fixture directive ${options.name}.</description>
    <category>demo</category>
    <author>test</author>
    ${options.model ?? '<model tier="sonnet" id="claude-sonnet-4-20250514" />'}
    <limits ${options.limits ?? 'max_turns="6" max_spend="1.00"'} />
    <permissions>
${options.permissions}
    </permissions>
  </metadata>

  <inputs>
    <input name="${input}" type="string" required="true">What to do</input>
  </inputs>

  <process>
    <step name="work">
      <description>Do {input:${input}}.</description>
    </step>
  </process>

  <outputs>
    <output name="${output}" type="string" required="true">The result</output>
    <success>Done: {${output}}</success>
  </outputs>
</directive>
\`\`\`
`;
}

/**
 * The tools run sandboxed and write in the project's \`markers/\` (RYE_TEST_DIR):
 * each declares it, and no directive of these suites narrows writes (none has
 * a \`<sandbox>\`), so a tool that ran always leaves its marker.
 */
const MARKERS = '"write": ["markers"], "env": ["RYE_TEST_DIR"]';

/** A python tool: writes `<name>.ran` into RYE_TEST_DIR (proof it ran) and echoes its parameters. */
function markerTool(name: string): string {
  return `import json, sys, os
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "t"
__tool_description__ = "${name} with a marker"
__permissions__ = {${MARKERS}}
params = json.loads(sys.argv[2])
open(os.path.join(os.environ["RYE_TEST_DIR"], "${name}.ran"), "a").write("ran\\n")
print(json.dumps({"echo": params}))
`;
}

/**
 * A tool that asks rye, over the operation channel (fd 3), to execute each of
 * its \`tools\` (\`directive:<id>\` for a directive), and saves whatever
 * RYE_CAP_TOKEN it was given (none: no token reaches a tool, even one that
 * declares the name) to \`token.txt\`.
 */
const CALLER_TOOL = `import json, sys, os
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "t"
__tool_description__ = "asks rye over fd 3"
__permissions__ = {"rye": ["rye.execute.tool.t/*", "rye.execute.directive.*"], "write": ["markers"], "env": ["RYE_TEST_DIR", "RYE_CAP_TOKEN"]}
params = json.loads(sys.argv[2])
d = os.environ["RYE_TEST_DIR"]
open(os.path.join(d, "token.txt"), "w").write(os.environ.get("RYE_CAP_TOKEN", ""))
channel = os.fdopen(int(os.environ["RYE_CHANNEL_FD"]), "r+b", buffering=0)
out = {}
for n, tool in enumerate(params["tools"]):
    kind, _, item = tool.rpartition(":")
    request = {"item_type": "directive", "item_id": item, "inputs": {"part": "z"}} if kind == "directive" else {"item_type": "tool", "item_id": item, "parameters": {}}
    channel.write((json.dumps({"id": n, "op": "execute", "input": request}) + "\\n").encode())
    line = b""
    while not line.endswith(b"\\n"):
        chunk = os.read(channel.fileno(), 65536)
        if not chunk:
            break
        line += chunk
    answer = json.loads(line)
    out[tool] = {"status": answer.get("status"), "code": (answer.get("error") or {}).get("code")}
print(json.dumps(out))
`;

/**
 * A tool that runs in the folder \`<label>/\`, records its pid in \`<label>.pid\`
 * and sleeps (for cancel cascades). The pid is its sandbox's: \`sleeperPid\`
 * finds the host's.
 */
const SLEEPER_TOOL = `import json, sys, os, time
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "t"
__tool_description__ = "sleeps"
__permissions__ = {${MARKERS}}
params = json.loads(sys.argv[2])
os.makedirs(os.path.join(os.environ["RYE_TEST_DIR"], params["label"]), exist_ok=True)
os.chdir(os.path.join(os.environ["RYE_TEST_DIR"], params["label"]))
open(os.path.join(os.environ["RYE_TEST_DIR"], params["label"] + ".pid"), "w").write(str(os.getpid()))
time.sleep(60)
print(json.dumps({"slept": True}))
`;

/** A tool that waits (up to 20 s) until \`<file>\` exists in RYE_TEST_DIR: orders events across threads. */
const WAITFOR_TOOL = `import json, sys, os, time
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "t"
__tool_description__ = "waits for a file"
__permissions__ = {"env": ["RYE_TEST_DIR"]}
params = json.loads(sys.argv[2])
path = os.path.join(os.environ["RYE_TEST_DIR"], params["file"])
end = time.time() + 20
while not os.path.exists(path) and time.time() < end:
    time.sleep(0.02)
print(json.dumps({"seen": os.path.exists(path)}))
`;

export interface TreeProject extends ExecProject {
  readonly server: ScriptedProvider;
  /** Where the tools write their markers, pids and the captured token: the project's \`markers/\`. */
  readonly dir: string;
  ran(tool: string): boolean;
  /** The host pid of the sleeper labelled \`label\` once it runs (undefined before). */
  sleeperPid(label: string): number | undefined;
  run(
    directiveId: string,
    inputs: Record<string, unknown>,
    signal?: AbortSignal,
    ids?: { clock: Clock; random: RandomSource },
  ): Promise<ThreadResult>;
  registry<T>(body: (db: RegistryDb) => T): T;
  /** A thread's verified thread.json. */
  record(threadId: string): Promise<ThreadRecord>;
  /** Resume a thread in process, as `rye thread resume` does. */
  resume(
    threadId: string,
    message: string,
    ids?: { clock: Clock; random: RandomSource },
  ): Promise<ThreadResult>;
}

/** The directives a test needs, by id (`demo/<name>`), and a scripted provider. */
export async function treeProject(
  directives: Record<string, string>,
  script: readonly ScriptEntry[],
): Promise<TreeProject> {
  const p = await makeExecProject();
  for (const name of ['echo', 'evil']) p.write(`.ai/tools/t/${name}.py`, markerTool(name));
  p.write('.ai/tools/t/caller.py', CALLER_TOOL);
  p.write('.ai/tools/t/sleeper.py', SLEEPER_TOOL);
  p.write('.ai/tools/t/waitfor.py', WAITFOR_TOOL);
  await p.sign('tool', 't/*');
  for (const [id, text] of Object.entries(directives)) p.write(`.ai/directives/${id}.md`, text);
  await p.sign('directive', 'demo/*');
  const server = await startScriptedProvider({ script });
  const dir = join(p.project, 'markers');
  mkdirSync(dir, { recursive: true });
  const env = {
    ...p.env,
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: server.url,
    RYE_TEST_DIR: dir,
    RYE_TEST_NODE: process.execPath,
    RYE_TEST_BIN: join(process.cwd(), 'bin', 'rye.js'),
    RYE_TEST_PROJECT: p.project,
  };
  const signer = await readSigner(keyDir(p.spaces));
  return {
    ...p,
    env,
    server,
    dir,
    ran: (tool) => existsSync(join(dir, `${tool}.ran`)),
    sleeperPid(label) {
      const file = join(dir, `${label}.pid`);
      const own = existsSync(file) ? Number(readFileSync(file, 'utf8')) : 0;
      return own > 0 ? hostPidOf(own, realpathSync(join(dir, label))) : undefined;
    },
    async run(directiveId, inputs, signal, ids) {
      const ops = { spaces: p.spaces, env, authority: operatorAuthority(), threads: THREADS_PORT };
      const plan = await planDirectiveOperation(ops, directiveId, inputs);
      const selection = await selectProvider(
        p.spaces,
        { provider: 'anthropic', id: plan.model?.model },
        { env },
      );
      const loaded = await loadOperation(ops, { item_type: 'directive', item_id: directiveId });
      return runThread({
        projectRoot: p.project,
        ops,
        plan,
        returnSchema: returnSchemaOf(loaded.metadata['program'] as DirectiveProgram),
        client: spawnedIds(createProviderClient(selection, { env })),
        signer,
        ...(signal === undefined ? {} : { signal }),
        ...ids,
      });
    },
    async resume(threadId, message, ids) {
      const { trust } = await loadTrustStore(trustStores(p.spaces));
      return resumeThread({
        projectRoot: p.project,
        ops: { spaces: p.spaces, env, authority: operatorAuthority(), threads: THREADS_PORT },
        threadId,
        message,
        signer,
        trust,
        client: async (plan) =>
          spawnedIds(
            createProviderClient(
              await selectProvider(
                p.spaces,
                { provider: plan.model?.provider, id: plan.model?.model },
                { env },
              ),
              { env },
            ),
          ),
        ...ids,
      });
    },
    async record(threadId) {
      const { trust } = await loadTrustStore(trustStores(p.spaces));
      return readThreadRecord(threadPaths(p.project, threadId), trust);
    },
    registry(body) {
      const db = RegistryDb.open(registryDbPath(p.project));
      try {
        return body(db);
      } finally {
        db.close();
      }
    },
  };
}

/**
 * A scripted model cannot know the ids of the children it spawned: this
 * client replaces each `"$spawned:N"` string in a tool call's input with the
 * id of the N-th child the conversation spawned (in call order), read from
 * the spawn results the request carries.
 */
export function spawnedIds(client: ProviderClient): ProviderClient {
  return {
    family: client.family,
    async send(request, options) {
      const ids: string[] = [];
      for (const message of request.messages)
        for (const part of message.content)
          if (part.type === 'tool_result') {
            const match = /"thread_id":"([a-z0-9_]+-[0-9a-z]{26})"/.exec(part.content);
            if (match?.[1] !== undefined && part.content.includes('"caps_dropped"'))
              ids.push(match[1]);
          }
      const response = await client.send(request, options);
      const swap = (value: unknown): unknown => {
        if (typeof value === 'string') {
          const m = /^\$spawned:(\d+)$/.exec(value);
          return m === null ? value : (ids[Number(m[1])] ?? value);
        }
        if (Array.isArray(value)) return value.map(swap);
        if (typeof value === 'object' && value !== null)
          return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swap(v)]));
        return value;
      };
      return {
        ...response,
        content: response.content.map((part) =>
          part.type === 'tool_call' ? { ...part, input: swap(part.input) } : part,
        ),
      };
    },
  };
}

/** A `rye_execute` call of a directive. */
export function execDirective(
  id: string,
  inputs: Record<string, unknown>,
  thread: 'spawn' | 'wait',
): { name: string; input: Record<string, unknown> } {
  return { name: 'rye_execute', input: { item_type: 'directive', item_id: id, inputs, thread } };
}

/** A `rye_execute` call of a tool. */
export function execTool(
  id: string,
  parameters: Record<string, unknown> = {},
): { name: string; input: Record<string, unknown> } {
  return { name: 'rye_execute', input: { item_type: 'tool', item_id: id, parameters } };
}

export function returns(answer: string, outcome = 'success') {
  return {
    tool_calls: [{ name: 'directive_return', input: { outcome, answer } }],
    usage: { in: 100, out: 10 },
  };
}

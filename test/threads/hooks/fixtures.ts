import { readFileSync } from 'node:fs';
import { readSigner } from '../../../src/integrity/index.js';
import { keyDir, type DirectiveProgram } from '../../../src/items/index.js';
import { operatorAuthority, type Authority } from '../../../src/capabilities/index.js';
import { returnSchemaOf } from '../../../src/threads/directive/index.js';
import type { HookHost } from '../../../src/threads/hooks/index.js';
import { runThread } from '../../../src/threads/tree/index.js';
import { type ThreadResult } from '../../../src/threads/loop/index.js';
import { loadOperation } from '../../../src/ops/index.js';
import { planDirectiveOperation } from '../../../src/threads/admission/index.js';
import type { ThreadRun } from '../../../src/threads/loop/thread-run.js';
import { createProviderClient, selectProvider } from '../../../src/threads/providers/index.js';
import { threadPaths } from '../../../src/threads/store/index.js';
import type { ScriptEntry } from '../../support/scripted-provider/index.js';
import { MARKER_PERMISSIONS, threadProject, type ThreadProject } from '../loop/fixtures.js';
import { THREADS_PORT } from '../../../src/threads/root/index.js';

/** A python tool printing a fixed JSON document (and appending its params to the marker). */
export function jsonTool(output: unknown, description = 'prints a fixed answer'): string {
  return `import json, sys, os
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "t"
__tool_description__ = "${description}"
__permissions__ = ${MARKER_PERMISSIONS}
params = json.loads(sys.argv[2])
open(os.environ["RYE_TEST_MARKER"], "a").write(json.dumps(params) + "\\n")
print(${JSON.stringify(JSON.stringify(output))})
`;
}

/** A summarizer tool: `{summary}` naming how many characters of conversation it got. */
export const SUMMARIZE_TOOL = `import json, sys
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "t"
__tool_description__ = "summarizes a conversation span"
params = json.loads(sys.argv[2])
print(json.dumps({"summary": "SUMMARY of %d chars" % len(params["conversation"])}))
`;

export interface DirectiveSpec {
  readonly name: string;
  readonly hooks: string;
  /** Inner XML of `<execute>`. */
  readonly execute?: string;
  readonly limits?: string;
  readonly inputs?: string;
  readonly outputs?: boolean;
}

/** A directive whose hooks, permissions and limits are given. */
export function hookDirective(spec: DirectiveSpec): string {
  return `# ${spec.name}

\`\`\`xml
<directive name="${spec.name}" version="1.0.0">
  <metadata>
    <description>A directive with hooks.</description>
    <category>demo</category>
    <author>test</author>
    <model tier="sonnet" id="claude-sonnet-4-20250514" />
    <limits ${spec.limits ?? 'max_turns="6" max_spend="0.50"'} />
    <permissions>
      <execute>${spec.execute ?? '<tool>t.echo</tool>'}</execute>
      <load><knowledge>notes.*</knowledge></load>
    </permissions>
  </metadata>
  <inputs>${spec.inputs ?? '<input name="topic" type="string" required="true">What</input>'}</inputs>
  <process>
    <step name="work"><description>Do the work on the topic.</description></step>
  </process>
  ${
    spec.outputs === false
      ? ''
      : `<outputs>
    <output name="answer" type="string" required="true">The answer</output>
  </outputs>`
  }
  <hooks>
${spec.hooks}
  </hooks>
</directive>
\`\`\`
`;
}

/** The fixture project plus the given directives (`demo/<name>`) and tools (`t/<name>.py`), signed. */
export async function hookProject(
  script: readonly ScriptEntry[],
  items: { directives?: Record<string, string>; tools?: Record<string, string> },
): Promise<ThreadProject> {
  const p = await threadProject(script);
  for (const [name, text] of Object.entries(items.tools ?? {}))
    p.write(`.ai/tools/t/${name}.py`, text);
  await p.sign('tool', 't/*');
  for (const [name, text] of Object.entries(items.directives ?? {}))
    p.write(`.ai/directives/demo/${name}.md`, text);
  await p.sign('directive', 'demo/*');
  return p;
}

export interface RunOptions {
  readonly hookHost?: (run: ThreadRun) => HookHost;
  /** Replace the model's context window (to reach pressure with small conversations). */
  readonly contextWindow?: number;
  readonly authority?: Authority;
  readonly retryPolicy?: { maxAttempts: number; baseDelayMs: number };
}

/** Run a directive as a root thread through the library, as the CLI does. */
export async function runDirective(
  p: ThreadProject,
  directiveId: string,
  inputs: unknown,
  options: RunOptions = {},
): Promise<ThreadResult> {
  const ops = {
    spaces: p.spaces,
    env: p.env,
    authority: options.authority ?? operatorAuthority(),
    threads: THREADS_PORT,
  };
  const planned = await planDirectiveOperation(ops, directiveId, inputs);
  const model = planned.model!;
  const plan =
    options.contextWindow === undefined
      ? planned
      : { ...planned, model: { ...model, context_window: options.contextWindow } };
  const selection = await selectProvider(
    p.spaces,
    { provider: 'anthropic', id: model.model },
    { env: p.env },
  );
  const loaded = await loadOperation(ops, { item_type: 'directive', item_id: directiveId });
  return runThread({
    projectRoot: p.project,
    ops,
    plan,
    returnSchema: returnSchemaOf(loaded.metadata['program'] as DirectiveProgram),
    client: createProviderClient(selection, { env: p.env }),
    signer: await readSigner(keyDir(p.spaces)),
    ...(options.hookHost === undefined ? {} : { hookHost: options.hookHost }),
    ...(options.retryPolicy === undefined ? {} : { retryPolicy: options.retryPolicy }),
  });
}

/** The signed thread.json of a thread, as parsed JSON. */
export function recordJson(p: ThreadProject, threadId: string): Record<string, unknown> {
  return JSON.parse(readFileSync(threadPaths(p.project, threadId).record, 'utf8')) as Record<
    string,
    unknown
  >;
}

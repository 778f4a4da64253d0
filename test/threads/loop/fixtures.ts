import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadTrustStore } from '../../../src/integrity/index.js';
import { trustStores } from '../../../src/items/index.js';
import { RegistryDb, registryDbPath, threadPaths } from '../../../src/threads/store/index.js';
import { splitLines, verifyTranscript } from '../../../src/threads/transcript/index.js';
import { rye, type CliResult } from '../../helpers/cli.js';
import { makeExecProject, type ExecProject } from '../../helpers/exec-project.js';
import { knowledgeText } from '../../helpers/catalog.js';
import { signText, readSigner } from '../../../src/integrity/index.js';
import { keyDir } from '../../../src/items/index.js';
import {
  startScriptedProvider,
  type ScriptedProvider,
} from '../../support/scripted-provider/index.js';
import type { ScriptEntry } from '../../support/scripted-provider/index.js';

/** A directive that loads notes, runs t/echo and returns `answer`. */
export function directiveText(
  options: { limits?: string; model?: string; tool?: string } = {},
): string {
  return `# Summarise

\`\`\`xml
<directive name="summarise" version="1.0.0">
  <metadata>
    <description>Read the notes, run the echo tool and return an answer.</description>
    <category>demo</category>
    <author>test</author>
    ${options.model ?? '<model tier="sonnet" id="claude-sonnet-4-20250514" />'}
    <limits ${options.limits ?? 'max_turns="6" max_spend="0.50"'} />
    <permissions>
      <execute>
        <tool>${options.tool ?? 't.echo'}</tool>
      </execute>
      <load>
        <knowledge>notes.*</knowledge>
      </load>
    </permissions>
  </metadata>

  <inputs>
    <input name="topic" type="string" required="true">What to summarise</input>
  </inputs>

  <process>
    <step name="read">
      <description>Load the notes on {input:topic}, run the echo tool, then return.</description>
    </step>
  </process>

  <outputs>
    <output name="answer" type="string" required="true">The answer</output>
    <success>Summary of {input:topic}: {answer}</success>
  </outputs>
</directive>
\`\`\`
`;
}

/**
 * What a fixture tool that marks declares: it runs sandboxed and appends to
 * RYE_TEST_MARKER, in the project's \`markers/\`. No directive of these suites
 * narrows writes (none has a \`<sandbox>\`), so a tool that ran always marks.
 */
export const MARKER_PERMISSIONS = '{"write": ["markers"], "env": ["RYE_TEST_MARKER"]}';

/** A python tool that writes a marker file (proof it ran) and echoes its parameters. */
const ECHO_TOOL = `import json, sys, os
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "t"
__tool_description__ = "echo with a marker"
__permissions__ = ${MARKER_PERMISSIONS}
params = json.loads(sys.argv[2])
open(os.environ["RYE_TEST_MARKER"], "a").write(sys.argv[0] + "\\n")
print(json.dumps({"echo": params}))
`;

/**
 * A python tool that writes \`<marker>.started\` (it runs), sleeps 30 s, then
 * writes the marker: proof it was not killed.
 */
const SLOW_TOOL = ECHO_TOOL.replace('echo with a marker', 'sleep, then mark').replace(
  'params = json.loads',
  'open(os.environ["RYE_TEST_MARKER"] + ".started", "w")\nimport time\ntime.sleep(30)\nparams = json.loads',
);

/** A python tool outside the directive's capabilities; running it would write the marker. */
const EVIL_TOOL = ECHO_TOOL.replace('echo with a marker', 'must never run');

export interface ThreadProject extends ExecProject {
  readonly server: ScriptedProvider;
  /** Where t/echo, t/evil and t/slow append (in the project's \`markers/\`). */
  readonly marker: string;
  run(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<CliResult>;
}

/** A project with the directive, notes, t/echo and t/evil signed, and a scripted provider. */
export async function threadProject(
  script: readonly ScriptEntry[],
  options: { limits?: string; model?: string; tool?: string } = {},
): Promise<ThreadProject> {
  const p = await makeExecProject();
  const signer = await readSigner(keyDir(p.spaces));
  p.write('.ai/tools/t/echo.py', ECHO_TOOL);
  p.write('.ai/tools/t/evil.py', EVIL_TOOL);
  p.write('.ai/tools/t/slow.py', SLOW_TOOL);
  await p.sign('tool', 't/*');
  p.write('.ai/directives/demo/summarise.md', directiveText(options));
  await p.sign('directive', 'demo/summarise');
  const notes = knowledgeText('style', 'notes', 'Style notes', 'Prefer short answers.');
  p.write(
    '.ai/knowledge/notes/style.md',
    signText(notes, { itemType: 'knowledge', extension: '.md', signer }).text,
  );
  const server = await startScriptedProvider({ script });
  const marker = join(p.project, 'markers', 'marker.txt');
  mkdirSync(dirname(marker));
  const env = {
    ...p.env,
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: server.url,
    RYE_TEST_MARKER: marker,
  };
  return {
    ...p,
    env,
    server,
    marker,
    run: (args, extra = {}) =>
      rye([...args, '--project', p.project], { env: { ...env, ...extra } }),
  };
}

/** threadProject's options for a directive with unlimited spend (a --limit only narrows). */
export const UNLIMITED_SPEND = { limits: 'max_turns="6" max_spend="0"' } as const;

export const EXECUTE = ['execute', 'directive', 'demo/summarise', '--inputs', '{"topic":"style"}'];

/** The transcript's events, after verifying its chain and checkpoints against the user's trust. */
export async function verifiedEvents(
  p: ExecProject,
  threadId: string,
): Promise<{ type: string; payload: Record<string, unknown> }[]> {
  const paths = threadPaths(p.project, threadId);
  const bytes = readFileSync(paths.transcript);
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
}

/** What the ledger committed for a thread, and its registry row. */
export async function ledgerOf(p: ExecProject, threadId: string) {
  const db = RegistryDb.open(registryDbPath(p.project));
  try {
    const snapshot = await db.budgetStore().snapshot(threadId);
    return { snapshot, row: db.get(threadId) };
  } finally {
    db.close();
  }
}

export function markerRan(p: ThreadProject): boolean {
  return existsSync(p.marker);
}

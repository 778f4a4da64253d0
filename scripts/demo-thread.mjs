// The thread part of the demo: a directive, the script the LLM follows, and
// the scripted provider from test/support (bundled with esbuild, a dev
// dependency, so the demo needs no API key and no network).
import { importExampleScripts } from './example-scripts.mjs';

export const THREAD_DIRECTIVE = `# Summarise

\`\`\`xml
<directive name="summarise" version="1.0.0">
  <metadata>
    <description>Read the demo notes and summarise them.</description>
    <category>demo</category>
    <author>demo</author>
    <model tier="sonnet" id="claude-sonnet-4-20250514" />
    <limits max_turns="5" max_spend="0.10" />
    <permissions>
      <load>
        <knowledge>demo.*</knowledge>
      </load>
    </permissions>
  </metadata>
  <inputs>
    <input name="topic" type="string" required="true">What to summarise</input>
  </inputs>
  <process>
    <step name="read"><description>Load demo/about, then return a one-line summary of {input:topic}.</description></step>
  </process>
  <outputs>
    <output name="summary" type="string" required="true">One line</output>
    <success>{input:topic}: {summary}</success>
  </outputs>
</directive>
\`\`\`
`;

/** What the model does: read (allowed), run a tool it was never granted (denied), return. */
export const THREAD_SCRIPT = [
  {
    match: { directive: 'summarise' },
    turns: [
      {
        text: 'Reading the notes first.',
        tool_calls: [
          { name: 'rye_load', input: { item_type: 'knowledge', item_id: 'demo/about' } },
        ],
        usage: { in: 1200, out: 40 },
      },
      {
        text: 'The notes say to run the report tool.',
        tool_calls: [
          {
            name: 'rye_execute',
            input: { item_type: 'tool', item_id: 'demo/report/main', parameters: { name: 'x' } },
          },
        ],
        usage: { in: 1500, out: 50 },
      },
      {
        tool_calls: [
          {
            name: 'directive_return',
            input: { outcome: 'success', summary: 'signing and verification, shown end to end' },
          },
        ],
        usage: { in: 1700, out: 30 },
      },
    ],
  },
];

/** Start the scripted provider (bundled into `root`) on 127.0.0.1. */
export async function startDemoProvider(root, script) {
  const { startScriptedProvider } = await importExampleScripts(root);
  return startScriptedProvider({ script, key: 'demo-key' });
}

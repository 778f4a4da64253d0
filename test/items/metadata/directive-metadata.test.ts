import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RyeError } from '../../../src/errors/index.js';
import type { ErrorCode } from '../../../src/errors/index.js';
import {
  extractDirectiveMetadata,
  parseDirectiveXml,
} from '../../../src/items/metadata/directive-metadata.js';
import { requireVectors } from '../../helpers/vectors.js';

/** The seed's build_crud_app orchestrator, trimmed: one step per kind of child. */
const BUILD_CRUD_APP = `<!-- rye:signed:2026-02-11T00:00:00Z:CONTENT_HASH:ED25519_SIG:PUBKEY_FP -->

# Build CRUD App

\`\`\`\`xml
<directive name="build_crud_app" version="1.0.0">
  <metadata>
    <description>Orchestrate full-stack CRUD app creation — plan, scaffold, implement features in waves, test, build, and package as MCP bundle.</description>
    <category>apps/task-manager</category>
    <author>rye</author>
    <model tier="sonnet" id="claude-sonnet-4-20250514" />
    <limits max_turns="30" max_tokens="80000" max_spawns="8" max_spend="3.00" />
    <permissions>
      <execute>
        <tool>rye.file-system.*</tool>
        <tool>rye.core.runtimes.node_runtime</tool>
        <directive>apps.task-manager.*</directive>
      </execute>
      <search>
        <knowledge>*</knowledge>
        <directive>*</directive>
      </search>
      <load>
        <knowledge>*</knowledge>
      </load>
    </permissions>
  </metadata>

  <inputs>
    <input name="name" type="string" required="true">
      Application name in kebab-case (e.g., "task-manager")
    </input>
    <input name="features" type="string" required="false" default="crud">
      Comma-separated feature list
    </input>
  </inputs>

  <process>
    <step name="load_patterns">
      <description>Load knowledge entries for React component patterns.</description>
      <load item_type="knowledge" item_id="apps/{input:name}/react-patterns" />
    </step>
    <step name="scaffold">
      <description>Create project directory structure.</description>
      <execute item_type="directive" item_id="apps/{input:name}/scaffold_project">
        <param name="name" value="{input:name}" />
      </execute>
    </step>
    <!-- parallel="true" is advisory to the LLM. -->
    <step name="wave_1" parallel="true">
      <description>Execute Wave 1 plans in parallel.</description>
      <execute item_type="directive" item_id="apps/{input:name}/implement_feature">
        <param name="plan_path" value=".ai/plans/{input:name}/phase_1/plan_db_schema.md" />
      </execute>
    </step>
  </process>

  <hooks>
    <hook event="limit" when="turns_exceeded">
      <directive>apps/{input:name}/build_and_serve</directive>
      <inputs>
        <input name="action" value="status_report" />
      </inputs>
    </hook>
  </hooks>

  <success_criteria>
    <criterion>Test suite passes with zero failures</criterion>
  </success_criteria>

  <outputs>
    <success>App '{input:name}' built and running.</success>
    <failure>Build failed.</failure>
  </outputs>
</directive>
\`\`\`\`
`;

function directive(body: string, attrs = 'name="demo" version="1.0.0"'): string {
  return `# Demo\n\n\`\`\`xml\n<directive ${attrs}>\n${body}\n</directive>\n\`\`\`\n`;
}

function errorFrom(run: () => unknown): RyeError {
  try {
    run();
  } catch (error) {
    if (error instanceof RyeError) return error;
    throw error;
  }
  throw new Error('expected a RyeError');
}

function expectRefusal(text: string, code: ErrorCode): RyeError {
  const error = errorFrom(() => extractDirectiveMetadata(text, 'demo.md'));
  expect(error.code).toBe(code);
  expect(error.message).toMatch(/^Cannot /);
  return error;
}

describe('extractDirectiveMetadata()', () => {
  it("reads the seed's build_crud_app directive from a four-backtick fence", () => {
    const meta = extractDirectiveMetadata(BUILD_CRUD_APP, 'build_crud_app.md');
    expect(meta).toMatchObject({
      kind: 'directive',
      name: 'build_crud_app',
      version: '1.0.0',
      category: 'apps/task-manager',
      author: 'rye',
    });
    expect(meta.description).toMatch(/^Orchestrate full-stack CRUD app creation — plan/);
    expect(meta.sections['model']).toEqual({ tier: 'sonnet', id: 'claude-sonnet-4-20250514' });
    expect(meta.sections['limits']).toEqual({
      max_turns: 30,
      max_tokens: 80000,
      max_spawns: 8,
      max_spend: 3,
    });
    expect(meta.sections['permissions']).toEqual({
      execute: {
        tool: ['rye.file-system.*', 'rye.core.runtimes.node_runtime'],
        directive: ['apps.task-manager.*'],
      },
      search: { knowledge: ['*'], directive: ['*'] },
      load: { knowledge: ['*'] },
    });
    expect(meta.sections['inputs']).toEqual([
      {
        name: 'name',
        type: 'string',
        required: true,
        description: 'Application name in kebab-case (e.g., "task-manager")',
      },
      {
        name: 'features',
        type: 'string',
        required: false,
        default: 'crud',
        description: 'Comma-separated feature list',
      },
    ]);
    expect(meta.sections['process']).toEqual([
      {
        name: 'load_patterns',
        description: 'Load knowledge entries for React component patterns.',
        attributes: { name: 'load_patterns' },
        actions: [
          {
            verb: 'load',
            attributes: { item_type: 'knowledge', item_id: 'apps/{input:name}/react-patterns' },
            params: {},
          },
        ],
      },
      {
        name: 'scaffold',
        description: 'Create project directory structure.',
        attributes: { name: 'scaffold' },
        actions: [
          {
            verb: 'execute',
            attributes: { item_type: 'directive', item_id: 'apps/{input:name}/scaffold_project' },
            params: { name: '{input:name}' },
          },
        ],
      },
      {
        name: 'wave_1',
        description: 'Execute Wave 1 plans in parallel.',
        attributes: { name: 'wave_1', parallel: 'true' },
        actions: [
          {
            verb: 'execute',
            attributes: {
              item_type: 'directive',
              item_id: 'apps/{input:name}/implement_feature',
            },
            params: { plan_path: '.ai/plans/{input:name}/phase_1/plan_db_schema.md' },
          },
        ],
      },
    ]);
    expect(meta.sections['hooks']).toEqual([
      {
        attributes: { event: 'limit', when: 'turns_exceeded' },
        directive: 'apps/{input:name}/build_and_serve',
        inputs: { action: 'status_report' },
      },
    ]);
    expect(meta.sections['success_criteria']).toEqual(['Test suite passes with zero failures']);
    expect(meta.sections['outputs']).toEqual([
      { name: 'success', description: "App '{input:name}' built and running." },
      { name: 'failure', description: 'Build failed.' },
    ]);
  });

  it('reads a bare <directive> element with no fence', () => {
    const text =
      '<directive name="bare" version="2.1.0"><metadata><author>a</author></metadata></directive>';
    expect(extractDirectiveMetadata(text, 'bare.md')).toMatchObject({
      name: 'bare',
      version: '2.1.0',
      author: 'a',
      description: undefined,
      category: undefined,
    });
  });

  it('keeps free text with bare &, < and placeholders literal, decoding only predefined references', () => {
    const meta = extractDirectiveMetadata(
      directive(
        '<metadata><description>Fish & chips < 5 {input:name} &amp; &lt;b&gt; &#65;&#x42; &foo;</description></metadata>',
      ),
      'demo.md',
    );
    expect(meta.description).toBe('Fish & chips < 5 {input:name} & <b> AB &foo;');
  });

  it('takes the span to the last </directive>, past <directive> grants in permissions', () => {
    const meta = extractDirectiveMetadata(
      directive(
        '<metadata><permissions><search><directive>*</directive></search></permissions></metadata>',
      ),
      'demo.md',
    );
    expect(meta.sections['permissions']).toEqual({ search: { directive: ['*'] } });
  });

  it('maps wildcard permissions to * item types', () => {
    const all = directive('<metadata><permissions>*</permissions></metadata>');
    const verb = directive('<metadata><permissions><load>*</load></permissions></metadata>');
    expect(extractDirectiveMetadata(all, 'a.md').sections['permissions']).toEqual({
      '*': { '*': ['*'] },
    });
    expect(extractDirectiveMetadata(verb, 'v.md').sections['permissions']).toEqual({
      load: { '*': ['*'] },
    });
  });

  it('reads an empty <category> as the top-level folder ""', () => {
    const meta = extractDirectiveMetadata(
      directive('<metadata><category></category></metadata>'),
      'x.md',
    );
    expect(meta.category).toBe('');
  });

  it('does not read sections outside the <directive> span as metadata', () => {
    const text = `${directive('<metadata><author>a</author></metadata>')}\n<process><step name="s"/></process>\n`;
    expect(extractDirectiveMetadata(text, 'x.md').sections).toEqual({});
  });

  it('accepts CRLF line endings', () => {
    const meta = extractDirectiveMetadata(
      directive('<metadata>\n<author>crlf</author>\n</metadata>').replace(/\n/g, '\r\n'),
      'x.md',
    );
    expect(meta.author).toBe('crlf');
  });

  it('keeps unknown sections: leaf as text, structured as an element tree', () => {
    const meta = extractDirectiveMetadata(
      directive('<context>Read it</context><notes kind="x"><note>n</note></notes>'),
      'x.md',
    );
    expect(meta.sections['context']).toBe('Read it');
    expect(meta.sections['notes']).toEqual({
      tag: 'notes',
      attributes: { kind: 'x' },
      text: '',
      children: [{ tag: 'note', attributes: {}, text: 'n', children: [] }],
    });
  });
});

describe('extractDirectiveMetadata() refusals', () => {
  it('refuses a DOCTYPE inside the span and names the line', () => {
    const error = expectRefusal(
      directive('<!DOCTYPE directive>\n<metadata/>'),
      'PARSE_UNSAFE_CONTENT',
    );
    expect(error.details).toMatchObject({ line: 5, construct: '<!DOCTYPE' });
  });

  it('refuses an ENTITY declaration', () => {
    const error = expectRefusal(directive('<!ENTITY x "boom">'), 'PARSE_UNSAFE_CONTENT');
    expect(error.details['construct']).toBe('<!ENTITY');
  });

  it('refuses ELEMENT and ATTLIST declarations', () => {
    expectRefusal(directive('<!ELEMENT metadata ANY>'), 'PARSE_UNSAFE_CONTENT');
    expectRefusal(directive('<!ATTLIST directive name CDATA #IMPLIED>'), 'PARSE_UNSAFE_CONTENT');
  });

  it('refuses a billion-laughs document before any expansion', () => {
    const lol = [
      '<!DOCTYPE directive [',
      ' <!ENTITY lol "lol">',
      ...Array.from({ length: 9 }, (_, i) => {
        const prev = i === 0 ? 'lol' : `lol${i}`;
        return ` <!ENTITY lol${i + 1} "${`&${prev};`.repeat(10)}">`;
      }),
      ']>',
    ].join('\n');
    const text = `<directive name="lol" version="1.0.0">${lol}<metadata><description>&lol9;</description></metadata></directive>`;
    const error = expectRefusal(text, 'PARSE_UNSAFE_CONTENT');
    expect(error.details['construct']).toBe('<!DOCTYPE');
  });

  it('refuses processing instructions', () => {
    expectRefusal(directive('<?xml-stylesheet href="x"?><metadata/>'), 'PARSE_UNSAFE_CONTENT');
  });

  it('refuses nesting deeper than the cap', () => {
    const deep = '<a>'.repeat(40) + '</a>'.repeat(40);
    const error = expectRefusal(directive(deep), 'PARSE_UNSAFE_CONTENT');
    expect(error.message).toMatch(/nesting/);
  });

  it('counts depth from markup only: comments, CDATA and quoted > do not count', () => {
    const deep = '<a>'.repeat(40);
    const text = directive(
      `<!-- ${deep} --><notes><![CDATA[${deep}]]></notes><step note="a > b">x</step>`,
    );
    expect(extractDirectiveMetadata(text, 'x.md').sections['step']).toMatchObject({
      attributes: { note: 'a > b' },
      text: 'x',
    });
  });

  it('refuses an oversized span', () => {
    const big = directive(`<notes>${'x'.repeat(300 * 1024)}</notes>`);
    expectRefusal(big, 'PARSE_UNSAFE_CONTENT');
  });

  it('reports malformed XML with the line in the file', () => {
    const error = expectRefusal(
      directive('<metadata>\n<author>a</writer>\n</metadata>'),
      'METADATA_PARSE_FAILED',
    );
    expect(error.details['line']).toBe(6);
    expect(error.message).toMatch(/line 6: .*author/);
  });

  it('fails when there is no <directive> element', () => {
    expectRefusal('# Just prose\n', 'METADATA_PARSE_FAILED');
    expectRefusal('<directive name="x">no end', 'METADATA_PARSE_FAILED');
  });

  it('exposes the parsed element tree through parseDirectiveXml()', () => {
    const root = parseDirectiveXml(directive('<metadata/>'), 'x.md');
    expect(root).toMatchObject({ tag: 'directive', attributes: { name: 'demo' } });
  });
});

describe('extractDirectiveMetadata() on hostile 1 MB files', () => {
  const MB = 1024 * 1024;
  const span = (inner: string): string =>
    `<directive name="d" version="1.0.0">\n<metadata><description>d</description></metadata>\n${inner}\n</directive>`;
  const file = (inner: string): string => {
    const xml = span(inner);
    return `# Hostile\n\n\`\`\`xml\n${xml}\n\`\`\`\n\n${'Body text.\n'.repeat((MB - xml.length) / 11)}`;
  };

  it('reads 17,000 grants of one type in a 1 MB file (once one copy of the list per grant)', () => {
    const grants = '<tool>a</tool>'.repeat(17_000);
    const text = file(`<permissions><execute>${grants}</execute></permissions>`);
    expect(text.length).toBeGreaterThan(MB - 11);
    const meta = extractDirectiveMetadata(text, 'hostile.md');
    const permissions = meta.sections['permissions'] as Record<string, Record<string, string[]>>;
    expect(permissions['execute']?.['tool']).toHaveLength(17_000);
  });

  it('refuses a 1 MB span and 1 MB of unclosed elements before parsing', () => {
    expect(expectRefusal(span('<a>b</a>'.repeat(MB / 8)), 'PARSE_UNSAFE_CONTENT').message).toMatch(
      /span over 262144 characters/,
    );
    expect(expectRefusal(span('<a>'.repeat(80_000)), 'PARSE_UNSAFE_CONTENT').message).toMatch(
      /nesting 80001 elements deep/,
    );
  });
});

describe('extractDirectiveMetadata() on real directives', () => {
  it('reads name and version from every directive in the conformance vectors', () => {
    const VECTORS = requireVectors();
    const files = readdirSync(VECTORS, { recursive: true, encoding: 'utf8' })
      .map((file) => file.split('\\').join('/'))
      .filter((file) => /\/files\/\.ai\/directives\/.+\.md$/.test(file));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const meta = extractDirectiveMetadata(readFileSync(join(VECTORS, file), 'utf8'), file);
      expect(meta.name, file).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(meta.version, file).toMatch(/^\d+\.\d+\.\d+$/);
    }
  });
});

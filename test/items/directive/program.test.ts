import { describe, expect, it } from 'vitest';
import { parseDirectiveProgramSync as parseDirectiveProgram } from '../../../src/items/directive/program.js';
import { directiveText, errorFrom, fieldsOf, issuesOf, metadataWith } from './helpers.js';

const FULL = directiveText(
  `  <inputs>
    <input name="name" type="string" required="true">App name</input>
    <input name="count" type="integer" default="3">How many</input>
    <input name="ratio" type="number" default="0.5">A ratio</input>
    <input name="dry" type="boolean" required="false" default="true">Dry run</input>
    <input name="opts" type="object" default='{"a":1}'>Options</input>
    <input name="tags" type="array" default='["x"]'>Tags</input>
    <input name="note" type="string">Optional, no default</input>
  </inputs>
  <process>
    <step name="load_patterns">
      <description>Load patterns for {input:name}.</description>
      <load item_type="knowledge" item_id="apps/{input:name}/react-patterns" />
    </step>
    <step name="wave_1" parallel="true">
      <description>Two children.</description>
      <execute item_type="directive" item_id="apps/{input:name}/implement_feature">
        <param name="plan_path" value=".ai/plans/{input:name}/plan.md" />
        <param name="name">{input:name}</param>
      </execute>
      <search item_type="tool" query="test runner" />
      <sign item_type="knowledge" item_id="apps/notes" />
    </step>
    <step name="plain">Plain text is the description.</step>
  </process>
  <hooks>
    <hook event="thread_started"><tool>apps/log</tool></hook>
    <hook event="after_step" result_mode="observation"><directive>apps/check</directive></hook>
    <hook event="limit" when="spend_exceeded">
      <directive>apps/{input:name}/report</directive>
      <inputs><input name="action" value="status_report" /><input name="name">{input:name}</input></inputs>
    </hook>
    <hook event="error" result_mode="discard"><tool>apps/stop</tool></hook>
    <hook event="context_window_pressure" ratio="0.75"><directive>rye/agent/compact</directive></hook>
    <hook event="after_complete"><directive>apps/serve</directive></hook>
  </hooks>
  <success_criteria>
    <criterion>Tests pass</criterion>
  </success_criteria>
  <outputs>
    <output name="commit_hash" type="string" required="true">The commit</output>
    <output name="files" type="array">Files written</output>
    <success>Committed as {commit_hash}.</success>
    <failure>Failed: see {thread_id}.</failure>
  </outputs>`,
  {
    metadata:
      metadataWith(`<model tier="sonnet" id="claude-sonnet-4-20250514" provider="anthropic" />
    <limits max_turns="30" tokens="80000" max_spend="3.00" spawns="0" max_depth="2" duration_seconds="600" max_tool_calls="50" />
    <permissions>
      <execute>
        <tool>rye.file-system.*</tool>
        <directive>apps.task-manager.*</directive>
      </execute>
      <search>*</search>
      <load><knowledge>*</knowledge></load>
      <sign><tool>apps/x/*</tool></sign>
      <acknowledge risk="unrestricted" />
    </permissions>`),
  },
);

describe('parseDirectiveProgram()', () => {
  it('reads every part of the grammar into a typed program', () => {
    const program = parseDirectiveProgram(FULL, 'demo.md');
    expect(program).toMatchObject({
      name: 'demo',
      version: '1.0.0',
      description: 'Demo directive.',
      category: 'demo',
      author: 'tester',
      model: { tier: 'sonnet', id: 'claude-sonnet-4-20250514', provider: 'anthropic' },
      limits: {
        turns: 30,
        tokens: 80000,
        spend: '3.00',
        spawns: 0,
        depth: 2,
        duration_seconds: 600,
        tool_calls: 50,
      },
      permissions: {
        everything: false,
        acknowledgeUnrestricted: true,
        entries: [
          { verb: 'execute', type: 'tool', value: 'rye.file-system.*' },
          { verb: 'execute', type: 'directive', value: 'apps.task-manager.*' },
          { verb: 'search', type: '*', value: '*' },
          { verb: 'load', type: 'knowledge', value: '*' },
          { verb: 'sign', type: 'tool', value: 'apps/x/*' },
        ],
      },
      successCriteria: ['Tests pass'],
    });
    expect(program.inputs).toEqual([
      { name: 'name', type: 'string', required: true, description: 'App name' },
      { name: 'count', type: 'integer', required: false, default: 3, description: 'How many' },
      { name: 'ratio', type: 'number', required: false, default: 0.5, description: 'A ratio' },
      { name: 'dry', type: 'boolean', required: false, default: true, description: 'Dry run' },
      { name: 'opts', type: 'object', required: false, default: { a: 1 }, description: 'Options' },
      { name: 'tags', type: 'array', required: false, default: ['x'], description: 'Tags' },
      { name: 'note', type: 'string', required: false, description: 'Optional, no default' },
    ]);
    expect(program.process.map((s) => [s.name, s.parallel, s.description])).toEqual([
      ['load_patterns', false, 'Load patterns for {input:name}.'],
      ['wave_1', true, 'Two children.'],
      ['plain', false, 'Plain text is the description.'],
    ]);
    expect(program.process[1]?.actions).toEqual([
      {
        verb: 'execute',
        itemType: 'directive',
        itemId: 'apps/{input:name}/implement_feature',
        params: { plan_path: '.ai/plans/{input:name}/plan.md', name: '{input:name}' },
      },
      { verb: 'search', itemType: 'tool', query: 'test runner', params: {} },
      { verb: 'sign', itemType: 'knowledge', itemId: 'apps/notes', params: {} },
    ]);
    expect(program.hooks).toEqual([
      { event: 'thread_started', action: { kind: 'tool', itemId: 'apps/log' }, inputs: {} },
      {
        event: 'after_step',
        resultMode: 'observation',
        action: { kind: 'directive', itemId: 'apps/check' },
        inputs: {},
      },
      {
        event: 'limit',
        when: 'spend_exceeded',
        action: { kind: 'directive', itemId: 'apps/{input:name}/report' },
        inputs: { action: 'status_report', name: '{input:name}' },
      },
      {
        event: 'error',
        resultMode: 'discard',
        action: { kind: 'tool', itemId: 'apps/stop' },
        inputs: {},
      },
      {
        event: 'context_window_pressure',
        ratio: 0.75,
        action: { kind: 'directive', itemId: 'rye/agent/compact' },
        inputs: {},
      },
      { event: 'after_complete', action: { kind: 'directive', itemId: 'apps/serve' }, inputs: {} },
    ]);
    expect(program.outputs).toEqual({
      success: 'Committed as {commit_hash}.',
      failure: 'Failed: see {thread_id}.',
      fields: [
        { name: 'commit_hash', type: 'string', required: true, description: 'The commit' },
        { name: 'files', type: 'array', required: false, description: 'Files written' },
      ],
    });
  });

  it('keeps a directive without permissions fail-closed and without outputs return-less', () => {
    const program = parseDirectiveProgram(
      directiveText('<process><step name="one">Do it.</step></process>'),
    );
    expect(program.permissions).toEqual({
      entries: [],
      everything: false,
      acknowledgeUnrestricted: false,
    });
    expect(program.outputs).toBeUndefined();
    expect(program.limits).toEqual({});
  });

  it('reads <permissions>*</permissions> as everything', () => {
    const program = parseDirectiveProgram(
      directiveText('', {
        metadata: metadataWith('<permissions>*<acknowledge risk="unrestricted"/></permissions>'),
      }),
    );
    expect(program.permissions).toEqual({
      entries: [],
      everything: true,
      acknowledgeUnrestricted: true,
    });
  });

  it('lists every issue at once, each with its path, in one VALIDATION_FAILED', () => {
    const text = directiveText(
      `  <inputs><input name="a" type="text" /></inputs>
  <process><step name="s"><execute item_type="tool" item_id="../x" /></step></process>
  <hooks><hook event="on_start"><tool>t</tool></hook></hooks>`,
      {
        attrs: 'name="Demo" version="1"',
        metadata: metadataWith('<limits max_turns="-1" max_tokens="2.5" /><tags>x</tags>'),
      },
    );
    const error = errorFrom(() => parseDirectiveProgram(text, 'demo.md'));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toMatch(/^Cannot accept directive demo\.md: 8 issues: /);
    expect((error.details['issues'] as { field: string }[]).map((i) => i.field)).toEqual([
      '@name',
      '@version',
      'metadata.tags',
      'metadata.limits@max_turns',
      'metadata.limits@max_tokens',
      'inputs.input[0]@type',
      'process.step[0].execute[0]@item_id',
      'hooks.hook[0]@event',
    ]);
  });
});

describe('limits', () => {
  const limits = (attrs: string): string =>
    directiveText('', { metadata: metadataWith(`<limits ${attrs} />`) });

  it('accepts the seed aliases and the short names, 0 = unlimited, up to the documented maxima', () => {
    const program = parseDirectiveProgram(
      limits(
        'turns="10000" max_tokens="100000000" spend="10000" max_spawns="1000" depth="15" max_duration_seconds="604800" tool_calls="0"',
      ),
    );
    expect(program.limits).toEqual({
      turns: 10000,
      tokens: 100000000,
      spend: '10000',
      spawns: 1000,
      depth: 15,
      duration_seconds: 604800,
      tool_calls: 0,
    });
    expect(parseDirectiveProgram(limits('max_spend="0.000000001"')).limits.spend).toBe(
      '0.000000001',
    );
  });

  it.each([
    ['max_turns="-1"', 'whole number'],
    ['max_turns="2.5"', 'whole number'],
    ['max_turns="010"', 'whole number'],
    ['max_turns="1e3"', 'whole number'],
    ['max_turns=" 5"', 'whole number'],
    ['max_turns="10001"', 'at most 10000'],
    ['max_tokens="99999999999999999999"', 'whole number'],
    ['depth="16"', 'at most 15'],
    ['duration_seconds="604801"', 'at most 604800'],
    ['max_spend="-1"', 'decimal USD'],
    ['max_spend="1.5e3"', 'decimal USD'],
    ['max_spend=".5"', 'decimal USD'],
    ['max_spend="1.0000000001"', 'decimal USD'],
    ['max_spend="10000.000000001"', 'at most 10000 USD'],
    ['max_spend="$3"', 'decimal USD'],
  ])('refuses %s', (attrs, why) => {
    const [issue, ...rest] = issuesOf(limits(attrs));
    expect(rest).toEqual([]);
    expect(issue?.field).toBe(`metadata.limits@${attrs.slice(0, attrs.indexOf('='))}`);
    expect(issue?.message).toContain(why);
  });

  it('refuses unknown limit names and one limit spelled twice', () => {
    expect(issuesOf(limits('max_turn="3" turns="1" max_turns="2" budget="1"'))).toEqual([
      {
        field: 'metadata.limits@max_turn',
        message: expect.stringContaining('unknown limit "max_turn"'),
      },
      { field: 'metadata.limits@max_turns', message: 'limit turns is already set by turns' },
      { field: 'metadata.limits@budget', message: expect.stringContaining('unknown limit') },
    ]);
  });

  it('refuses text or children inside <limits>', () => {
    expect(fieldsOf(directiveText('', { metadata: metadataWith('<limits>30</limits>') }))).toEqual([
      'metadata.limits',
    ]);
  });
});

describe('permissions', () => {
  const perms = (inner: string): string =>
    directiveText('', { metadata: metadataWith(`<permissions>${inner}</permissions>`) });

  it.each([
    ['<write><tool>x</tool></write>', 'metadata.permissions.write', 'unknown element <write>'],
    [
      '<execute><bundle>x</bundle></execute>',
      'metadata.permissions.execute[0].bundle',
      'unknown element <bundle>',
    ],
    ['<execute>rye.x</execute>', 'metadata.permissions.execute[0]', 'text must be "*"'],
    ['<execute></execute>', 'metadata.permissions.execute[0]', 'grants nothing'],
    ['<execute><tool></tool></execute>', 'metadata.permissions.execute[0].tool[0]', 'empty'],
    [
      '<execute><tool>apps/{input:name}/*</tool></execute>',
      'metadata.permissions.execute[0].tool[0]',
      'never interpolated',
    ],
    [
      '<execute><tool>a b</tool></execute>',
      'metadata.permissions.execute[0].tool[0]',
      'whitespace',
    ],
    [
      '<execute><tool a="1">x</tool></execute>',
      'metadata.permissions.execute[0].tool[0]@a',
      'unknown attribute',
    ],
    [
      '<acknowledge risk="some" />',
      'metadata.permissions.acknowledge[0]@risk',
      'must be "unrestricted"',
    ],
    ['all', 'metadata.permissions', 'text must be "*"'],
    ['*<execute>*</execute>', 'metadata.permissions.execute[0]', 'cannot follow "*"'],
    ['', 'metadata.permissions', 'grants nothing'],
  ])('refuses %s', (inner, field, why) => {
    const issues = issuesOf(perms(inner));
    expect(issues.map((i) => i.field)).toContain(field);
    expect(issues.find((i) => i.field === field)?.message).toContain(why);
  });

  it('refuses more than 256 grants', () => {
    const many = '<tool>a</tool>'.repeat(257);
    expect(issuesOf(perms(`<execute>${many}</execute>`))).toEqual([
      { field: 'metadata.permissions', message: 'declares 257 grants (at most 256)' },
    ]);
  });
});

describe('hooks', () => {
  const hooks = (inner: string): string =>
    directiveText(`  <hooks>${inner}</hooks>`, {
      metadata: metadataWith(''),
    });

  it.each([
    [
      '<hook event="on_start"><tool>t</tool></hook>',
      'hooks.hook[0]@event',
      'unknown hook event "on_start"',
    ],
    ['<hook><tool>t</tool></hook>', 'hooks.hook[0]@event', 'is required'],
    [
      '<hook event="limit" when="turns_exeeded"><tool>t</tool></hook>',
      'hooks.hook[0]@when',
      'unknown value "turns_exeeded"',
    ],
    [
      '<hook event="after_complete" when="turns_exceeded"><tool>t</tool></hook>',
      'hooks.hook[0]@when',
      'not allowed on a after_complete hook',
    ],
    [
      '<hook event="after_step" ratio="0.5"><tool>t</tool></hook>',
      'hooks.hook[0]@ratio',
      'not allowed',
    ],
    [
      '<hook event="context_window_pressure" ratio="1.5"><tool>t</tool></hook>',
      'hooks.hook[0]@ratio',
      'between 0 and 1',
    ],
    [
      '<hook event="context_window_pressure" ratio="0"><tool>t</tool></hook>',
      'hooks.hook[0]@ratio',
      'between 0 and 1',
    ],
    [
      '<hook event="limit" result_mode="control"><tool>t</tool></hook>',
      'hooks.hook[0]@result_mode',
      'not a result mode of limit hooks',
    ],
    [
      '<hook event="error" result_mode="observe"><tool>t</tool></hook>',
      'hooks.hook[0]@result_mode',
      'not a result mode',
    ],
    ['<hook event="error"></hook>', 'hooks.hook[0]', 'exactly one action'],
    [
      '<hook event="error"><tool>t</tool><directive>d</directive></hook>',
      'hooks.hook[0]',
      'exactly one action',
    ],
    [
      '<hook event="error"><tool>../{input:x}</tool></hook>',
      'hooks.hook[0].tool',
      'is not an item id',
    ],
    [
      '<hook event="error" mode="control"><tool>t</tool></hook>',
      'hooks.hook[0]@mode',
      'unknown attribute',
    ],
    [
      '<hook event="error"><tool>t</tool><inputs><input name="a" value="1" /><input name="a" value="2" /></inputs></hook>',
      'hooks.hook[0].inputs.input[1]@name',
      'given twice',
    ],
    [
      '<hook event="error"><tool>t</tool><inputs><input value="1" /></inputs></hook>',
      'hooks.hook[0].inputs.input[0]@name',
      'is required',
    ],
    ['<trigger />', 'hooks.trigger', 'unknown element <trigger>'],
  ])('refuses %s', (inner, field, why) => {
    const issues = issuesOf(hooks(inner));
    expect(issues.map((i) => i.field)).toContain(field);
    expect(issues.find((i) => i.field === field)?.message).toContain(why);
  });
});

describe('inputs, process, outputs and unknown elements', () => {
  it.each([
    [
      '<inputs><input name="a" type="text" /></inputs>',
      'inputs.input[0]@type',
      'unknown type "text"',
    ],
    ['<inputs><input name="a" /></inputs>', 'inputs.input[0]@type', 'is required'],
    [
      '<inputs><input name="a" type="string" /><input name="a" type="string" /></inputs>',
      'inputs.input[1]@name',
      'declared twice',
    ],
    [
      '<inputs><input name="a-b" type="string" /></inputs>',
      'inputs.input[0]@name',
      'must be a name',
    ],
    [
      '<inputs><input name="__proto__" type="string" /></inputs>',
      'inputs.input[0]@name',
      'must be a name',
    ],
    [
      '<inputs><input name="n" type="integer" default="1.5" /></inputs>',
      'inputs.input[0]@default',
      'must be an integer',
    ],
    [
      '<inputs><input name="n" type="object" default="[1]" /></inputs>',
      'inputs.input[0]@default',
      'must be an object',
    ],
    [
      '<inputs><input name="n" type="boolean" default="yes" /></inputs>',
      'inputs.input[0]@default',
      '"true" or "false"',
    ],
    [
      '<inputs><input name="n" type="string" required="true" default="x" /></inputs>',
      'inputs.input[0]@default',
      'required input cannot have a default',
    ],
    [
      '<inputs><input name="n" type="string" required="yes" /></inputs>',
      'inputs.input[0]@required',
      '"true" or "false"',
    ],
    [
      '<inputs><input name="n" type="string" optional="true" /></inputs>',
      'inputs.input[0]@optional',
      'unknown attribute',
    ],
    [
      '<process><step name="a">x</step><step name="a">y</step></process>',
      'process.step[1]@name',
      'declared twice',
    ],
    ['<process><step>x</step></process>', 'process.step[0]@name', 'is required'],
    ['<process><step name="a" /></process>', 'process.step[0]', 'the step is empty'],
    [
      '<process><step name="a" parallel="yes">x</step></process>',
      'process.step[0]@parallel',
      '"true" or "false"',
    ],
    [
      '<process><step name="a"><run item_id="x" /></step></process>',
      'process.step[0].run',
      'unknown element <run>',
    ],
    [
      '<process><step name="a"><execute item_type="knowledge" item_id="k" /></step></process>',
      'process.step[0].execute[0]@item_type',
      'must be one of tool, directive',
    ],
    [
      '<process><step name="a"><execute item_type="tool" /></step></process>',
      'process.step[0].execute[0]@item_id',
      'is required',
    ],
    [
      '<process><step name="a"><load item_type="tool" item_id="a/{input:x}/../b" /></step></process>',
      'process.step[0].load[0]@item_id',
      'is not an item id',
    ],
    [
      '<process><step name="a"><load item_type="tool" item_id="x"><param name="a" value="b" /></load></step></process>',
      'process.step[0].load[0].param',
      'unknown element <param>',
    ],
    [
      '<process><step name="a"><execute item_type="tool" item_id="x"><param name="p" value="1">2</param></execute></step></process>',
      'process.step[0].execute[0].param[0]',
      'not both',
    ],
    [
      '<process><step name="a"><search item_type="tool" /></step></process>',
      'process.step[0].search[0]@query',
      'is required',
    ],
    [
      '<process><step name="a">text<description>d</description></step></process>',
      'process.step[0]',
      'text outside <description>',
    ],
    ['<outputs />', 'outputs', 'declares nothing'],
    ['<outputs><success>Done as {outcome}</success></outputs>', 'outputs.success', 'harness owns'],
    [
      '<outputs><output name="outcome" /></outputs>',
      'outputs.output[0]@name',
      'not a valid output name',
    ],
    [
      '<outputs><output name="a" type="map" /></outputs>',
      'outputs.output[0]@type',
      'unknown type "map"',
    ],
    [
      '<outputs><success>a</success><success>b</success></outputs>',
      'outputs.success',
      'more than once',
    ],
    [
      '<success_criteria><criterion /></success_criteria>',
      'success_criteria.criterion[0]',
      'empty',
    ],
    [
      '<success_criteria><rule>x</rule></success_criteria>',
      'success_criteria.rule',
      'unknown element <rule>',
    ],
    ['<context>free text</context>', 'context', 'unknown element <context>'],
    ['<inputs /><inputs />', 'inputs', 'more than once'],
    ['stray text', 'directive', 'text is not allowed directly inside <directive>'],
    ['<directive name="inner" version="1.0.0" />', 'directive', 'unknown element <directive>'],
  ])('refuses %s', (body, field, why) => {
    const issues = issuesOf(directiveText(body));
    expect(issues.map((i) => i.field)).toContain(field);
    expect(issues.find((i) => i.field === field)?.message).toContain(why);
  });

  it('refuses unknown metadata elements, root attributes and model attributes', () => {
    const text = directiveText('', {
      attrs: 'name="demo" version="1.0.0" kind="x"',
      metadata: metadataWith('<model tier="sonnet" temperature="1" /><tags>a</tags>'),
    });
    expect(fieldsOf(text)).toEqual(['@kind', 'metadata.tags', 'metadata.model@temperature']);
  });

  it('requires metadata with a description, and a model with a tier or an id', () => {
    expect(fieldsOf(directiveText('', { metadata: '' }))).toEqual(['metadata']);
    expect(
      fieldsOf(directiveText('', { metadata: '<metadata><description /></metadata>' })),
    ).toEqual(['metadata.description']);
    expect(
      fieldsOf(directiveText('', { metadata: metadataWith('<model provider="x" />') })),
    ).toEqual(['metadata.model']);
  });

  it('checks every {input:x} of the whole file against the declared inputs', () => {
    const text = directiveText(
      `  <inputs><input name="name" type="string" /></inputs>
  <process><step name="a">Build {input:name} and {input:nmae}, {input:nmae} again.</step></process>
  <outputs><success>{input:missing}</success></outputs>`,
      { preamble: 'Preamble for {input:other}.\n\n' },
    );
    expect(issuesOf(text)).toEqual([
      { field: 'text:3', message: '{input:other} names no declared input' },
      { field: 'text:13', message: '{input:nmae} names no declared input' },
      { field: 'text:14', message: '{input:missing} names no declared input' },
    ]);
  });

  it('refuses a malformed {input: token, such as the Python default syntax', () => {
    const text = directiveText(
      '  <inputs><input name="kind" type="string" /></inputs>\n  <process><step name="a">Use {input:kind:user}.</step></process>',
    );
    expect(issuesOf(text)).toEqual([
      {
        field: 'text:11',
        message: '"{input:kind:user}" is not a placeholder: write {input:name}',
      },
    ]);
  });

  it('caps the issue list of a hostile file', () => {
    const issues = issuesOf(directiveText('<x/>'.repeat(5000)));
    expect(issues).toHaveLength(101);
    expect(issues[100]).toEqual({ field: '', message: 'and 4900 more issues' });
  });
});

describe('hostile XML', () => {
  const codeOf = (text: string): string =>
    errorFrom(() => parseDirectiveProgram(text, 'demo.md')).code;

  it('refuses DOCTYPE, entity declarations and processing instructions before parsing', () => {
    const withDecl = (decl: string): string =>
      directiveText('', { metadata: `${decl}\n${metadataWith('')}` });
    expect(codeOf(withDecl('<!DOCTYPE d [<!ENTITY a "aaaa">]>'))).toBe('PARSE_UNSAFE_CONTENT');
    expect(codeOf(withDecl('<!ENTITY a SYSTEM "file:///etc/passwd">'))).toBe(
      'PARSE_UNSAFE_CONTENT',
    );
    expect(codeOf(withDecl('<?xml-stylesheet href="x"?>'))).toBe('PARSE_UNSAFE_CONTENT');
  });

  it('keeps an undeclared entity reference as literal text, never expanded', () => {
    const program = parseDirectiveProgram(
      directiveText('<process><step name="s">Read &xxe; and &amp; and &#65;.</step></process>'),
    );
    expect(program.process[0]?.description).toBe('Read &xxe; and & and A.');
  });

  it('refuses two <directive> elements, side by side or nested', () => {
    const one = directiveText('');
    expect(codeOf(`${one}\n${one.replace('name="demo"', 'name="other"')}`)).toBe(
      'METADATA_PARSE_FAILED',
    );
    expect(fieldsOf(directiveText('<directive name="inner" version="1.0.0" />'))).toEqual([
      'directive',
    ]);
  });

  it('refuses an oversized <directive> element before parsing it', () => {
    const big = directiveText(`<process><step name="s">${'x'.repeat(300 * 1024)}</step></process>`);
    expect(codeOf(big)).toBe('PARSE_UNSAFE_CONTENT');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RyeError } from '../../../src/errors/index.js';
import { parseDirectiveProgramSync as parseDirectiveProgram } from '../../../src/items/directive/program.js';
import {
  interpolate,
  interpolateProgram,
  resolveInputs,
} from '../../../src/threads/directive/index.js';
import { directiveText } from '../../items/directive/helpers.js';

function refusal(run: () => unknown): RyeError {
  try {
    run();
  } catch (error) {
    if (error instanceof RyeError) return error;
    throw error;
  }
  throw new Error('expected a RyeError');
}

describe('interpolate()', () => {
  it('replaces {input:x} with strings as is and other values as JSON', () => {
    const text = 'a={input:a} n={input:n} b={input:b} o={input:o} l={input:l} z={input:z}';
    expect(
      interpolate(text, { a: 'x y', n: 3, b: true, o: { k: [1] }, l: [1, 'two'], z: null }),
    ).toBe('a=x y n=3 b=true o={"k":[1]} l=[1,"two"] z=null');
  });

  it('is one pass: a value holding {input:b} stays literal (no recursion, no loop)', () => {
    expect(interpolate('{input:a}/{input:b}', { a: '{input:b}', b: '{input:a}' })).toBe(
      '{input:b}/{input:a}',
    );
    expect(interpolate('{input:a}', { a: '{input:a}{input:a}' })).toBe('{input:a}{input:a}');
  });

  it('leaves {thread_id} and output placeholders for the runtime', () => {
    expect(interpolate('{input:a} {thread_id} {commit_hash} {}', { a: 'x' })).toBe(
      'x {thread_id} {commit_hash} {}',
    );
  });

  it('refuses an unknown {input:x} instead of writing an empty string', () => {
    const error = refusal(() => interpolate('App {input:nmae}', { name: 'x' }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details['issues']).toEqual([
      { field: 'text', message: '{input:nmae} names no declared input' },
    ]);
  });

  it('renders a declared optional input that was not given as an empty string', () => {
    expect(interpolate('[{input:note}]', {}, ['note'])).toBe('[]');
  });

  it('refuses a malformed {input: token', () => {
    const error = refusal(() => interpolate('{input:kind:user}', { kind: 'x' }));
    expect(error.details['issues']).toEqual([
      { field: 'text', message: '"{input:kind:user}" is not a placeholder: write {input:name}' },
    ]);
  });

  it('never expands a value, whatever the values hold (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const out = interpolate('<{input:a}|{input:b}>', { a, b });
        expect(out).toBe(`<${a}|${b}>`);
      }),
    );
  });
});

describe('interpolateProgram()', () => {
  const text = directiveText(
    `  <inputs>
    <input name="name" type="string" required="true">App</input>
    <input name="port" type="integer" default="3000">Port</input>
  </inputs>
  <process>
    <step name="serve">
      <description>Serve {input:name} on {input:port}.</description>
      <execute item_type="tool" item_id="apps/{input:name}/dev_server">
        <param name="port" value="{input:port}" />
      </execute>
      <search item_type="knowledge" query="{input:name} patterns" />
    </step>
  </process>
  <hooks>
    <hook event="after_complete">
      <directive>apps/{input:name}/report</directive>
      <inputs><input name="name" value="{input:name}" /></inputs>
    </hook>
  </hooks>
  <success_criteria><criterion>{input:name} answers</criterion></success_criteria>
  <outputs>
    <output name="url">URL of {input:name}</output>
    <success>{input:name} at {url}</success>
    <failure>{input:name} failed, see {thread_id}</failure>
  </outputs>`,
    {
      metadata: `<metadata><description>Serve {input:name}.</description><category>demo</category><author>t</author>
      <permissions><execute><tool>apps.*</tool></execute></permissions></metadata>`,
    },
  );
  const program = parseDirectiveProgram(text);

  it('interpolates every text field and leaves permissions and runtime placeholders alone', () => {
    const inputs = resolveInputs(program.inputs, { name: 'shop' });
    const run = interpolateProgram(program, inputs);
    expect(run.description).toBe('Serve shop.');
    expect(run.process[0]).toMatchObject({
      description: 'Serve shop on 3000.',
      actions: [
        { itemId: 'apps/shop/dev_server', params: { port: '3000' } },
        { query: 'shop patterns' },
      ],
    });
    expect(run.hooks[0]).toMatchObject({
      action: { itemId: 'apps/shop/report' },
      inputs: { name: 'shop' },
    });
    expect(run.successCriteria).toEqual(['shop answers']);
    expect(run.outputs).toEqual({
      success: 'shop at {url}',
      failure: 'shop failed, see {thread_id}',
      fields: [{ name: 'url', type: 'string', required: false, description: 'URL of shop' }],
    });
    expect(run.permissions).toBe(program.permissions);
    expect(program.process[0]?.description).toBe('Serve {input:name} on {input:port}.');
  });

  it('keeps a hostile value literal in ids and text', () => {
    const run = interpolateProgram(program, { name: '{input:port}/../x', port: 1 });
    expect(run.process[0]?.actions[0]?.itemId).toBe('apps/{input:port}/../x/dev_server');
  });
});

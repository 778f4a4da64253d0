import { describe, expect, it } from 'vitest';
import { parseDirectiveProgramSync as parseDirectiveProgram } from '../../../src/items/directive/program.js';
import {
  interpolateProgram,
  renderSummary,
  returnSchemaOf,
  validateReturn,
  type ReturnSchema,
} from '../../../src/threads/directive/index.js';
import { directiveText } from '../../items/directive/helpers.js';

const program = parseDirectiveProgram(
  directiveText(`  <inputs><input name="name" type="string" required="true">App</input></inputs>
  <outputs>
    <output name="passed" type="integer" required="true">Passing tests</output>
    <output name="files" type="array">Files</output>
    <success>{input:name}: {passed} passed, commit {commit_hash}.</success>
    <failure>{input:name} failed: {reason} ({commit_hash}). Resume: {thread_id}</failure>
  </outputs>`),
);
const schema = returnSchemaOf(program) as ReturnSchema;

describe('returnSchemaOf()', () => {
  it('lists typed outputs, then a string per template placeholder, with the outcomes requiring it', () => {
    expect(schema.fields).toEqual([
      { name: 'passed', type: 'integer', description: 'Passing tests', requiredOn: ['success'] },
      { name: 'files', type: 'array', description: 'Files', requiredOn: [] },
      {
        name: 'commit_hash',
        type: 'string',
        description: 'Fills {commit_hash} in the success summary.',
        requiredOn: ['success', 'failure'],
      },
      {
        name: 'reason',
        type: 'string',
        description: 'Fills {reason} in the failure summary.',
        requiredOn: ['failure'],
      },
    ]);
  });

  it('gives the provider a closed JSON Schema with outcome always required', () => {
    expect(schema.jsonSchema).toEqual({
      type: 'object',
      properties: {
        outcome: expect.objectContaining({ type: 'string', enum: ['success', 'failure'] }),
        passed: {
          type: 'integer',
          description: 'Passing tests Required when outcome is success.',
        },
        files: { type: 'array', description: 'Files' },
        commit_hash: {
          type: 'string',
          description:
            'Fills {commit_hash} in the success summary. Required when outcome is success or failure.',
        },
        reason: {
          type: 'string',
          description: 'Fills {reason} in the failure summary. Required when outcome is failure.',
        },
      },
      required: ['outcome', 'commit_hash'],
      additionalProperties: false,
    });
  });

  it('has no schema without <outputs>, and only outcome with placeholder-free templates', () => {
    expect(returnSchemaOf(parseDirectiveProgram(directiveText('')))).toBeUndefined();
    const plain = parseDirectiveProgram(
      directiveText(
        '<outputs><success>Done.</success><failure>See {thread_id}.</failure></outputs>',
      ),
    );
    expect(returnSchemaOf(plain)?.fields).toEqual([]);
  });

  it('is built from the signed program: an input value cannot add a field', () => {
    const run = interpolateProgram(program, { name: '{evil_field}' });
    expect(run.outputs?.success).toBe('{evil_field}: {passed} passed, commit {commit_hash}.');
    expect(returnSchemaOf(program)?.fields.map((f) => f.name)).not.toContain('evil_field');
  });
});

describe('validateReturn()', () => {
  it('accepts a complete value for each outcome', () => {
    expect(
      validateReturn(schema, { outcome: 'success', passed: 3, commit_hash: 'abc', files: [] }),
    ).toEqual([]);
    expect(validateReturn(schema, { outcome: 'failure', reason: 'x', commit_hash: 'abc' })).toEqual(
      [],
    );
  });

  it('lists every problem: outcome, unknown, missing and mistyped fields', () => {
    expect(validateReturn(schema, { outcome: 'done', extra: 1, passed: '3' })).toEqual([
      { field: 'outcome', message: 'must be "success" or "failure"' },
      { field: 'extra', message: 'is not a declared output' },
      { field: 'passed', message: 'must be an integer, got a string' },
    ]);
    expect(validateReturn(schema, { outcome: 'success', passed: 1.5 })).toEqual([
      { field: 'passed', message: 'must be an integer, got the number 1.5' },
      { field: 'commit_hash', message: 'is required when outcome is success' },
    ]);
    expect(validateReturn(schema, { outcome: 'failure' })).toEqual([
      { field: 'commit_hash', message: 'is required when outcome is failure' },
      { field: 'reason', message: 'is required when outcome is failure' },
    ]);
    expect(validateReturn(schema, 'done')).toEqual([
      { field: '', message: 'the return value must be an object' },
    ]);
    expect(validateReturn(schema, null)).toHaveLength(1);
  });
});

describe('renderSummary()', () => {
  it('fills inputs, outputs and the thread id in one pass over the signed template', () => {
    const values = {
      inputs: { name: 'shop' },
      outputs: { reason: '{input:name} {thread_id}', commit_hash: 'abc' },
      thread_id: 'demo-01jf0000000000000000000000',
    };
    expect(renderSummary(schema.templates.failure ?? '', values)).toBe(
      'shop failed: {input:name} {thread_id} (abc). Resume: demo-01jf0000000000000000000000',
    );
  });

  it('keeps unfilled placeholders as written and renders non-strings as JSON', () => {
    expect(
      renderSummary(schema.templates.success ?? '', {
        inputs: { name: 'x' },
        outputs: { passed: 2 },
      }),
    ).toBe('x: 2 passed, commit {commit_hash}.');
    expect(renderSummary('{thread_id} {files}', { inputs: {}, outputs: { files: ['a'] } })).toBe(
      '{thread_id} ["a"]',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { RyeError } from '../../../src/errors/index.js';
import { parseDirectiveProgramSync as parseDirectiveProgram } from '../../../src/items/directive/program.js';
import { admitHooks, resolveInputs } from '../../../src/threads/directive/index.js';
import { directiveText } from '../../items/directive/helpers.js';

const program = parseDirectiveProgram(
  directiveText(`  <inputs>
    <input name="name" type="string" required="true">App</input>
    <input name="note" type="string">Optional</input>
  </inputs>
  <hooks>
    <hook event="thread_started"><tool>apps/{input:name}/log</tool></hook>
    <hook event="after_step"><directive>apps/check</directive></hook>
    <hook event="limit"><directive>apps/{input:name}/report</directive>
      <inputs><input name="why" value="limit on {input:name}: {input:note}" /></inputs>
    </hook>
    <hook event="error"><directive>apps/recover</directive></hook>
    <hook event="context_window_pressure"><directive>rye/agent/compact</directive></hook>
    <hook event="context_window_pressure" ratio="0.5" result_mode="control"><directive>rye/agent/compact</directive></hook>
    <hook event="after_complete"><directive>apps/{input:name}/build_and_serve</directive></hook>
  </hooks>`),
);

function refusal(run: () => unknown): RyeError {
  try {
    run();
  } catch (error) {
    if (error instanceof RyeError) return error;
    throw error;
  }
  throw new Error('expected a RyeError');
}

describe('admitHooks()', () => {
  it('applies the default result mode of each event and the pressure ratio, and interpolates', () => {
    const hooks = admitHooks(program, resolveInputs(program.inputs, { name: 'shop' }));
    expect(hooks.map((h) => [h.event, h.resultMode, h.ratio, h.action.itemId])).toEqual([
      ['thread_started', 'observation', undefined, 'apps/shop/log'],
      ['after_step', 'discard', undefined, 'apps/check'],
      ['limit', 'discard', undefined, 'apps/shop/report'],
      ['error', 'control', undefined, 'apps/recover'],
      ['context_window_pressure', 'control', 0.8, 'rye/agent/compact'],
      ['context_window_pressure', 'control', 0.5, 'rye/agent/compact'],
      ['after_complete', 'discard', undefined, 'apps/shop/build_and_serve'],
    ]);
    expect(hooks[2]?.inputs).toEqual({ why: 'limit on shop: ' });
    expect(hooks[2]?.when).toBeUndefined();
  });

  it('refuses inputs that turn a hook id into an invalid item id, naming every hook', () => {
    for (const name of ['..', 'a/../../b', '/etc', 'x\\y', '{input:note}', '']) {
      const error = refusal(() => admitHooks(program, { name }));
      expect(error.code, name).toBe('INPUTS_INVALID');
      const fields = (error.details['issues'] as { field: string }[]).map((i) => i.field);
      expect(fields, name).toEqual([
        'hooks.hook[0].tool',
        'hooks.hook[2].directive',
        'hooks.hook[6].directive',
      ]);
    }
  });

  it('refuses a hook that references an input the directive does not declare', () => {
    const unchecked = {
      ...program,
      hooks: [{ ...program.hooks[0]!, action: { kind: 'tool' as const, itemId: 'a/{input:x}' } }],
    };
    const error = refusal(() => admitHooks(unchecked, { name: 'shop' }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details['issues']).toEqual([
      { field: 'hooks.hook[0].tool', message: '{input:x} names no declared input' },
    ]);
  });
});

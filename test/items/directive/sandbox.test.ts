import { describe, expect, it } from 'vitest';
import { parseDirectiveProgramSync as parseDirectiveProgram } from '../../../src/items/directive/program.js';
import { directiveText, issuesOf, metadataWith } from './helpers.js';

const withSandbox = (sandbox: string): string =>
  directiveText(
    `  <inputs><input name="name" type="string" required="true">App</input></inputs>
  <process><step name="s">Do it.</step></process>`,
    {
      metadata: metadataWith(`<permissions>
      <execute><tool>apps.*</tool></execute>
      ${sandbox}
    </permissions>`),
    },
  );

describe('<sandbox> inside <permissions>', () => {
  it('reads write entries (placeholders kept for admission) and network', () => {
    const program = parseDirectiveProgram(
      withSandbox('<sandbox write="apps/{input:name}/** .ai/plans/**" network="false"/>'),
      'demo.md',
    );
    expect(program.permissions.sandbox).toEqual({
      write: ['apps/{input:name}/**', '.ai/plans/**'],
      network: false,
    });
  });

  it('reads daemon', () => {
    const program = parseDirectiveProgram(withSandbox('<sandbox daemon="false"/>'), 'demo.md');
    expect(program.permissions.sandbox).toEqual({ daemon: false });
  });

  it('is absent when the directive says nothing', () => {
    const program = parseDirectiveProgram(withSandbox(''), 'demo.md');
    expect(program.permissions.sandbox).toBeUndefined();
  });

  it.each([
    ['an absolute path', '<sandbox write="/etc/**"/>', /relative to the project/],
    ['..', '<sandbox write="apps/../..//**"/>', /\.\./],
    ['a reserved folder', '<sandbox write=".ai/threads/**"/>', /no sandbox ever sees/],
    ['a mask', '<sandbox write="!apps"/>', /not a folder to write/],
    ['another placeholder', '<sandbox write="apps/{name}/**"/>', /not a folder to write/],
    ['a glob', '<sandbox write="apps/*/src"/>', /trailing/],
    ['a bad network', '<sandbox network="no"/>', /"true" or "false"/],
    ['a bad daemon', '<sandbox daemon="0"/>', /"true" or "false", got "0"/],
    ['an unknown attribute', '<sandbox read="."/>', /read/],
  ])('refuses %s with a validation issue', (_, element, why) => {
    const issues = issuesOf(withSandbox(element));
    expect(issues.map((i) => i.message).join('\n')).toMatch(why);
  });

  it('may appear once', () => {
    const issues = issuesOf(withSandbox('<sandbox network="false"/><sandbox network="false"/>'));
    expect(issues.length).toBeGreaterThan(0);
  });
});

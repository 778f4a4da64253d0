import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RyeError } from '../../../src/errors/index.js';
import {
  envNamesIn,
  expandEnvVars,
  renderString,
  renderTemplate,
  renderValue,
} from '../../../src/executor/env/template.js';

const VARS = { tool_path: '/p/tool.py', params_json: '{"a":1}', project_path: '/p' };

describe('envNamesIn()', () => {
  it('lists the ${VAR} and ${VAR:-default} names once each, in order', () => {
    expect(envNamesIn('${B}/${A:-x}:${B}:$C:${lower}:{tool_path}')).toEqual(['B', 'A']);
  });
});

describe('expandEnvVars()', () => {
  it('replaces ${VAR} with its value and an unset variable with nothing', () => {
    expect(expandEnvVars('${HOME}/x:${MISSING}!', { HOME: '/home/u' })).toBe('/home/u/x:!');
  });

  it('uses the ${VAR:-default} default when the variable is unset or empty', () => {
    const env = { SET: 'v', EMPTY: '', UNDEF: undefined };
    expect(expandEnvVars('${SET:-d}|${EMPTY:-d}|${UNDEF:-d}|${NONE:-d d}', env)).toBe('v|d|d|d d');
  });

  it('leaves $VAR without braces and lower-case ${names} alone', () => {
    expect(expandEnvVars('$HOME ${state.issues} ${name}', { HOME: '/h', name: 'n' })).toBe(
      '$HOME ${state.issues} ${name}',
    );
  });

  it('does not re-expand a value that contains ${X}', () => {
    expect(expandEnvVars('${A}', { A: '${B}', B: 'no' })).toBe('${B}');
  });

  it('ignores inherited object properties', () => {
    expect(expandEnvVars('[${CONSTRUCTOR}][${__PROTO__}]', {})).toBe('[][]');
  });
});

describe('renderTemplate()', () => {
  it('replaces known {names} only', () => {
    expect(renderTemplate('{tool_path} {unknown} {} { x } {a-b}', VARS)).toBe(
      '/p/tool.py {unknown} {} { x } {a-b}',
    );
  });

  it('does not re-render a value that contains {name}', () => {
    expect(renderTemplate('{params_json}', { params_json: '{tool_path}', tool_path: 'x' })).toBe(
      '{tool_path}',
    );
  });

  it('never changes text without {known} placeholders', () => {
    const known = Object.keys(VARS);
    fc.assert(
      fc.property(fc.string(), (text) => {
        fc.pre(!known.some((name) => text.includes(`{${name}}`)));
        expect(renderTemplate(text, VARS)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('never changes brace-heavy text without {known} placeholders', () => {
    const pieces = fc.constantFrom('{', '}', '{x}', '{tool_pat}', '$', '"', 'a', '{}', ' ');
    fc.assert(
      fc.property(
        fc.array(pieces).map((parts) => parts.join('')),
        (text) => {
          fc.pre(!Object.keys(VARS).some((name) => text.includes(`{${name}}`)));
          expect(renderTemplate(text, VARS)).toBe(text);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('renderString()', () => {
  it('does not expand ${X} that a {name} inserted', () => {
    const vars = { params_json: '{"path":"${HOME}"}' };
    expect(renderString('{params_json}', { HOME: '/home/u' }, vars)).toBe('{"path":"${HOME}"}');
  });

  it('does not render {name} that an env value inserted', () => {
    expect(renderString('${EVIL}', { EVIL: '{tool_path}' }, VARS)).toBe('{tool_path}');
  });

  it('leaves JSON braces in an embedded Python -c script alone', () => {
    const script =
      'import json,sys\nprint(json.dumps(r)if r is not None else\'{}\')\nd={"k": {"v": 1}}';
    expect(renderString(script, {}, VARS)).toBe(script);
  });
});

describe('renderValue()', () => {
  it('renders strings deep inside arrays and objects and keeps other values', () => {
    const config = {
      command: '${RYE_PYTHON}',
      args: ['{tool_path}', '--params', '{params_json}', 3, true, null],
      nested: { cwd: '{project_path}' },
      timeout: 300,
    };
    expect(renderValue(config, { RYE_PYTHON: '/venv/python' }, VARS)).toEqual({
      command: '/venv/python',
      args: ['/p/tool.py', '--params', '{"a":1}', 3, true, null],
      nested: { cwd: '/p' },
      timeout: 300,
    });
    expect(config.command).toBe('${RYE_PYTHON}');
  });

  it('renders null-prototype objects and keeps their keys as written', () => {
    const raw = Object.assign(Object.create(null) as Record<string, unknown>, {
      '{tool_path}': '{tool_path}',
    });
    expect(renderValue(raw, {}, VARS)).toEqual({ '{tool_path}': '/p/tool.py' });
  });

  it('refuses a cyclic config', () => {
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(() => renderValue(cyclic, {}, VARS)).toThrow(RyeError);
  });
});

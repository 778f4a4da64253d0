import { describe, expect, it } from 'vitest';
import { parseDotenv, parseDotenvDetailed } from '../../../src/executor/env/dotenv.js';

describe('parseDotenv()', () => {
  it('reads KEY=value and export KEY=value, skipping comments and blank lines', () => {
    const text = '# comment\n\nA=1\nexport B = two words \n  C=x # trailing comment\nD=a#b\n';
    expect(parseDotenv(text)).toEqual({ A: '1', B: 'two words', C: 'x', D: 'a#b' });
  });

  it('keeps single-quoted values literally', () => {
    expect(parseDotenv("A='  $HOME \\n #x '")).toEqual({ A: '  $HOME \\n #x ' });
  });

  it('decodes escapes inside double quotes', () => {
    expect(parseDotenv('A="l1\\nl2\\t\\"q\\" \\\\ \\$x" # c')).toEqual({
      A: 'l1\nl2\t"q" \\ \\$x',
    });
  });

  it('treats command substitution and variable references as plain data', () => {
    expect(parseDotenv('A=$(rm -rf /)\nB=`id`\nC=${HOME}')).toEqual({
      A: '$(rm -rf /)',
      B: '`id`',
      C: '${HOME}',
    });
  });

  it('handles CRLF line endings, a BOM and empty values', () => {
    expect(parseDotenv('\uFEFFA=1\r\nB=\r\nC=""\r\n')).toEqual({ A: '1', B: '', C: '' });
  });

  it('lets a later line win over an earlier one', () => {
    expect(parseDotenv('A=1\nA=2')).toEqual({ A: '2' });
  });

  it('stores a __proto__ key as data without touching the prototype', () => {
    const entries = parseDotenv('__proto__=x');
    expect(Object.getPrototypeOf(entries)).toBeNull();
    expect(entries['__proto__']).toBe('x');
  });
});

describe('parseDotenvDetailed()', () => {
  it('skips invalid lines and reports them by number without their content', () => {
    const text = "GOOD=1\nnot a pair\n1BAD=x\nQ=\"unterminated\nS='a' junk\nSECRET=ok";
    const { entries, warnings } = parseDotenvDetailed(text);
    expect(entries).toEqual({ GOOD: '1', SECRET: 'ok' });
    expect(warnings).toHaveLength(4);
    expect(warnings[0]).toMatch(/line 2/);
    expect(warnings.join('\n')).not.toMatch(/not a pair|junk|"unterminated/);
  });
});

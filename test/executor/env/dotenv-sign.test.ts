import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { signDotenvText, signProjectDotenv } from '../../../src/executor/env/dotenv-sign.js';
import { checkDotenvText } from '../../../src/executor/env/project-dotenv.js';
import { makeSigner } from '../../helpers/keys.js';

const created: string[] = [];
afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const { signer, trust } = makeSigner();

describe('signDotenvText()', () => {
  it('puts one signature line first, replacing an old one', () => {
    const once = signDotenvText('A=1\n', signer, '.env').signed.text;
    const twice = signDotenvText(`${once}B=2\n`, signer, '.env');
    expect(twice.signed.removedSignatures).toBe(1);
    expect(twice.signed.text.match(/rye:signed:/g)).toHaveLength(1);
    expect(twice.names).toEqual(['A', 'B']);
    expect(checkDotenvText(twice.signed.text, '.env', trust)).toMatchObject({
      entries: { A: '1', B: '2' },
    });
  });

  it('refuses to sign a loader name', () => {
    expect(() => signDotenvText('A=1\nPYTHONPATH=.\n', signer, '.env')).toThrow(
      expect.objectContaining({
        code: 'EXECUTOR_DOTENV_REFUSED',
        details: { path: '.env', names: ['PYTHONPATH'] },
      }),
    );
  });
});

describe('signProjectDotenv()', () => {
  it('signs <project>/.env in place, and says when there is none', async () => {
    const project = mkdtempSync(join(tmpdir(), 'rye-dotenv-sign-'));
    created.push(project);
    await expect(signProjectDotenv(project, signer)).rejects.toMatchObject({
      code: 'FILE_UNREADABLE',
    });
    writeFileSync(join(project, '.env'), 'A=1\n');
    const result = await signProjectDotenv(project, signer);
    expect(result).toMatchObject({ path: join(project, '.env'), names: ['A'] });
  });
});

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRyeError } from '../../../src/errors/index.js';
import { signDotenvText } from '../../../src/executor/env/dotenv-sign.js';
import {
  checkDotenvText,
  describeDotenv,
  readProjectDotenv,
} from '../../../src/executor/env/project-dotenv.js';
import { signText } from '../../../src/integrity/index.js';
import { makeSigner } from '../../helpers/keys.js';

const created: string[] = [];
afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rye-dotenv-'));
  created.push(dir);
  return dir;
}

const { signer, trust } = makeSigner('alice');
const PATH = '/p/.env';
const signed = (text: string): string => signDotenvText(text, signer, PATH).signed.text;

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (isRyeError(error)) return error.code;
    throw error;
  }
  throw new Error('expected a RyeError');
}

describe('checkDotenvText()', () => {
  it('reports an unsigned .env without parsing it', () => {
    expect(checkDotenvText('API_KEY=x\n', PATH, trust)).toEqual({ status: 'unsigned', path: PATH });
  });

  it('parses a .env signed by a trusted key', () => {
    const text = signed('API_KEY=x\nbroken\n');
    expect(text).toMatch(/^# rye:signed:/);
    expect(checkDotenvText(text, PATH, trust)).toMatchObject({
      status: 'signed',
      entries: { API_KEY: 'x' },
      fingerprint: signer.fingerprint,
      signer: 'alice',
      warnings: ['.env line 2: skipped, expected KEY=value'],
    });
  });

  it('refuses a signed .env that was edited, re-signed by a stranger, or carries a misplaced line', () => {
    const text = signed('API_KEY=x\n');
    expect(codeOf(() => checkDotenvText(`${text}MORE=1\n`, PATH, trust))).toBe(
      'INTEGRITY_HASH_MISMATCH',
    );
    const stranger = makeSigner('mallory').signer;
    expect(
      codeOf(() =>
        checkDotenvText(signDotenvText('A=1\n', stranger, PATH).signed.text, PATH, trust),
      ),
    ).toBe('INTEGRITY_UNTRUSTED_KEY');
    expect(codeOf(() => checkDotenvText(`A=1\n${text}`, PATH, trust))).toBe(
      'INTEGRITY_SIGNATURE_MISPLACED',
    );
    const forged = text.replace(
      /(:[0-9a-f]{64}:)(.{4})/,
      (_m, head: string, sig: string) => `${head}${sig === 'AAAA' ? 'BBBB' : 'AAAA'}`,
    );
    expect(codeOf(() => checkDotenvText(forged, PATH, trust))).toBe('INTEGRITY_BAD_SIGNATURE');
  });

  it('parses exactly the text that was hashed: a lone CR cannot merge two signed lines', () => {
    const text = signed('API_KEY=x\nBASE_URL=https://good.example\n');
    // Newlines are normalised before hashing, so this still verifies…
    const merged = text.replace('x\nBASE_URL', 'x\rBASE_URL');
    const result = checkDotenvText(merged, PATH, trust);
    // …and parses as the two lines that were signed.
    expect(result).toMatchObject({
      entries: { API_KEY: 'x', BASE_URL: 'https://good.example' },
    });
  });

  it('refuses a signed .env that sets a loader name, with the names', () => {
    const text = signText('A=1\nnode_options=--require x\nLD_PRELOAD=/x.so\n', {
      itemType: 'tool',
      extension: '.sh',
      signer,
    }).text;
    try {
      checkDotenvText(text, PATH, trust);
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toMatchObject({
        code: 'EXECUTOR_DOTENV_REFUSED',
        details: { path: PATH, names: ['LD_PRELOAD', 'node_options'] },
      });
    }
  });
});

describe('readProjectDotenv()', () => {
  it('is absent when there is no .env, and refuses a .env it cannot read', async () => {
    const project = tempProject();
    expect(await readProjectDotenv(project, trust)).toMatchObject({ status: 'absent' });
    mkdirSync(join(project, '.env'));
    await expect(readProjectDotenv(project, trust)).rejects.toMatchObject({
      code: 'FILE_UNREADABLE',
    });
  });

  it('refuses a dangling symlink and binary content instead of calling them unsigned', async () => {
    const project = tempProject();
    symlinkSync(join(project, 'nowhere'), join(project, '.env'));
    await expect(readProjectDotenv(project, trust)).rejects.toMatchObject({
      code: 'FILE_UNREADABLE',
    });
    rmSync(join(project, '.env'));
    writeFileSync(join(project, '.env'), Buffer.from([0x41, 0x3d, 0xff, 0xfe]));
    await expect(readProjectDotenv(project, trust)).rejects.toMatchObject({ code: 'FILE_BINARY' });
  });
});

describe('describeDotenv()', () => {
  it('names the state and the names applied, never a value', () => {
    expect(describeDotenv({ status: 'absent', path: PATH }, [])).toBe('absent');
    expect(describeDotenv({ status: 'unsigned', path: PATH }, [])).toBe('ignored: unsigned');
    const signedDotenv = checkDotenvText(signed('A=secret\nB=2\n'), PATH, trust);
    expect(describeDotenv(signedDotenv, [])).toBe('applied: none');
    expect(describeDotenv(signedDotenv, ['A', 'B'])).toBe('applied: A, B');
  });
});

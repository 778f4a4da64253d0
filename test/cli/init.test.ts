import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_README } from '../../src/items/index.js';
import { rye } from '../helpers/cli.js';
import { makeTempSpaces, type TempSpaces } from '../helpers/temp-space.js';

interface InitDoc {
  ok: boolean;
  project: string;
  status: string;
  created: string[];
  kept: string[];
  key: { status: string; fingerprint: string | null; private_key_path: string | null };
  commit: string[];
}

const init = (s: TempSpaces, ...args: string[]) =>
  rye(['init', ...args], { env: s.env, cwd: s.project });

describe('rye init', () => {
  it('makes the .ai/ skeleton, the README and a key; a second run changes nothing', async () => {
    const s = makeTempSpaces();
    const first = await init(s, '--json');
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const doc = first.json<InitDoc>();
    expect(doc).toMatchObject({ ok: true, status: 'initialized', kept: [] });
    expect(doc.created).toEqual([
      '.ai/',
      '.ai/directives/',
      '.ai/tools/',
      '.ai/knowledge/',
      '.ai/README.md',
    ]);
    expect(doc.key.status).toBe('generated');
    expect(doc.key.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(statSync(join(s.user, '.ai/keys/private_key.pem')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(s.project, '.ai/README.md'), 'utf8')).toBe(PROJECT_README);
    expect(doc.commit).toContain('.ai/tools/');

    const readmeTime = statSync(join(s.project, '.ai/README.md')).mtimeMs;
    const again = await init(s, '--json');
    expect(again.code).toBe(0);
    const second = again.json<InitDoc>();
    expect(second).toMatchObject({ status: 'unchanged', created: [] });
    expect(second.key).toEqual({ ...doc.key, status: 'existing' });
    expect(statSync(join(s.project, '.ai/README.md')).mtimeMs).toBe(readmeTime);

    const human = await init(s);
    expect(human.stdout).toContain('Already a rye project');
    expect(human.stdout).toContain('Commit .ai/');
  });

  it('keeps what is there: folders, your README, your key', async () => {
    const s = makeTempSpaces();
    expect((await rye(['keys', 'generate'], { env: s.env })).code).toBe(0);
    mkdirSync(join(s.project, '.ai/tools/mine'), { recursive: true });
    writeFileSync(join(s.project, '.ai/README.md'), 'our own notes\n');
    const doc = (await init(s, '--json')).json<InitDoc>();
    expect(doc.created).toEqual(['.ai/directives/', '.ai/knowledge/']);
    expect(doc.kept).toEqual(['.ai/', '.ai/tools/', '.ai/README.md']);
    expect(doc.key.status).toBe('existing');
    expect(readFileSync(join(s.project, '.ai/README.md'), 'utf8')).toBe('our own notes\n');
    expect(readdirSync(join(s.project, '.ai/tools'))).toEqual(['mine']);
  });

  it('refuses a file or a link where a folder goes, and changes nothing', async () => {
    const s = makeTempSpaces();
    mkdirSync(join(s.project, '.ai'));
    writeFileSync(join(s.project, '.ai/tools'), 'not a folder');
    const res = await init(s);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('error[PROJECT_INIT_CONFLICT]');
    expect(res.stderr).toContain(join(s.project, '.ai/tools'));
    expect(readdirSync(join(s.project, '.ai'))).toEqual(['tools']);
    expect(existsSync(join(s.user, '.ai/keys'))).toBe(false);

    const t = makeTempSpaces();
    const elsewhere = join(t.root, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(t.project, '.ai'));
    const linked = await init(t, '--json');
    expect(linked.code).toBe(1);
    expect(linked.json()).toMatchObject({ error: { code: 'PROJECT_INIT_CONFLICT' } });
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('creates a --project folder that does not exist yet; --no-key makes no key', async () => {
    const s = makeTempSpaces();
    const fresh = join(s.root, 'new', 'app');
    const res = await rye(['init', '--project', fresh, '--no-key', '--json'], { env: s.env });
    expect(res.code, res.stdout).toBe(0);
    expect(res.json<InitDoc>().key).toEqual({
      status: 'skipped',
      fingerprint: null,
      private_key_path: null,
    });
    expect(existsSync(join(fresh, '.ai/knowledge'))).toBe(true);
    expect(existsSync(join(s.user, '.ai/keys'))).toBe(false);
  });

  it('refuses to make the user space a project (usage error)', async () => {
    const s = makeTempSpaces();
    const res = await rye(['init', '--project', s.user], { env: s.env });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('user space');
    expect(existsSync(join(s.user, '.ai'))).toBe(false);
  });

  it('then commands run from a subfolder find the project', async () => {
    const s = makeTempSpaces();
    expect((await init(s)).code).toBe(0);
    const sub = join(s.project, 'src', 'lib');
    mkdirSync(sub, { recursive: true });
    const list = await rye(['trust', 'list', '--json'], { env: s.env, cwd: sub });
    expect(list.json<{ project: { trusted_keys: string } }>().project.trusted_keys).toContain(
      join('project', '.ai', 'trusted_keys'),
    );
  });
});

/**
 * The escape suite of CONTAINMENT.md §2, on real bubblewrap: each attack is a
 * real, signed tool (Python, node and shell) run through execute() in a temp
 * project whose user space holds the signing key, beside a fake home with an
 * ssh key, another project, another thread's transcript and an ungranted
 * knowledge file. Every test asserts that the effect is absent: the tool
 * tries and reports what it got, and what the attack would have changed on
 * the host stays as it was. Where it matters, a control run with the sandbox
 * off shows that the same attack does work without it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, connect, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signProjectDotenv } from '../../../src/executor/index.js';
import { signText } from '../../../src/integrity/index.js';
import { selectItems, signItemFile } from '../../../src/items/index.js';
import { refusal } from '../../helpers/refusal.js';
import {
  LANGUAGES,
  RYE_BIN,
  leaked,
  makeFixture,
  probe,
  probeId,
  probePath,
  processesWith,
  secret,
  waitFor,
  writeProbe,
  type Fixture,
  type Language,
} from './support.js';

const PG_SOCKET = '/var/run/postgresql/.s.PGSQL.5432';
const SECRET_NAMES = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'RYE_CAP_TOKEN'];
const NOT_FOUND = /ENOENT|No such file|FileNotFound|cannot open/;

let fx: Fixture;
/** A host process started with the secrets in its environment (like the rye process). */
let holder: ChildProcess;
/** Where a TCP service listens on 127.0.0.1: PostgreSQL's 5432, or a server of ours. */
let port: number;
let server: Server | undefined;

/** A descriptor number Node leaves alone at start-up (it reuses low ones for itself). */
const INHERITED_FD = 20;

/**
 * The fork bomb's timeout, in seconds. Python forks ~500 children and then
 * waits: the timeout kills it. Node (slow to spawn ~500 children on a busy
 * runner) and the shell exit once a fork fails, leaving their children to
 * the sandbox; node's timeout is only a ceiling.
 */
const BOMB_TIMEOUT: Record<Language, number> = { python: 3, node: 15, shell: 3 };

/**
 * Run the real `rye` CLI in JSON mode; `fd`, when given, is handed to it as
 * descriptor INHERITED_FD (as an operator's shell or an MCP host might leak one).
 */
function cli(
  args: string[],
  params?: unknown,
  fd?: number,
): Promise<Record<string, unknown> & { exitCode: number }> {
  // The fixture's RYE_CAP_TOKEN is a fake secret; the CLI would check it as a real one.
  const env = { ...fx.env };
  delete env['RYE_CAP_TOKEN'];
  const stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'pipe', 'pipe'];
  if (fd !== undefined) {
    while (stdio.length < INHERITED_FD) stdio.push('ignore');
    stdio.push(fd);
  }
  const argv = [
    RYE_BIN,
    ...args,
    ...(params === undefined ? [] : ['--params', JSON.stringify(params)]),
  ];
  const child = spawn(process.execPath, argv, { env, stdio });
  let stdout = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve({ ...(JSON.parse(stdout) as Record<string, unknown>), exitCode: code ?? -1 });
      } catch {
        reject(new Error(`rye ${args.join(' ')} printed no JSON (exit ${code}): ${stdout}`));
      }
    });
  });
}

/** The host's view of a path: its content, `<symlink>`, or null when absent. */
function hostState(path: string): string | null {
  try {
    if (lstatSync(path).isSymbolicLink()) return '<symlink>';
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function listening(at: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: at });
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

async function tcpService(): Promise<number> {
  if (await listening(5432)) return 5432;
  server = createServer((s) => s.end());
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no server address');
  return address.port;
}

beforeAll(async () => {
  fx = await makeFixture();
  for (const lang of LANGUAGES) {
    writeProbe(fx, lang, 'default');
    writeProbe(fx, lang, 'writer', { permissions: { write: ['out/**'] } });
    writeProbe(fx, lang, 'net', { permissions: { network: true } });
    writeProbe(fx, lang, 'envdecl', {
      permissions: { env: [...SECRET_NAMES, 'RYE_TEST_VISIBLE'] },
    });
    const timeout = BOMB_TIMEOUT[lang];
    writeProbe(fx, lang, 'timed', { permissions: { write: ['out/**'] }, config: { timeout } });
    // In a folder of its own: a shell tool's whole folder is its dependency set.
    writeProbe(fx, lang, 'tampered', { permissions: { write: ['out/**'] } }, 'tamper');
    writeProbe(fx, lang, 'linkread', { permissions: { read: ['linked/**'], write: ['out/**'] } });
    writeProbe(fx, lang, 'linkwrite', { permissions: { write: ['linkout/**'] } });
  }
  await fx.sign('esc/**');
  await fx.sign('tamper/**');
  mkdirSync(join(fx.project, 'out'));
  mkdirSync(join(fx.root, 'outside-dir'));
  // Symlinks planted in the project (by a model's file write, a cloned repo…).
  symlinkSync(fx.otherProject, join(fx.project, 'linked'));
  symlinkSync(fx.home, join(fx.project, 'planted-home'));
  symlinkSync(join(fx.root, 'outside-dir'), join(fx.project, 'linkout'));
  symlinkSync(join(fx.root, 'outside-dir'), join(fx.project, 'out', 'planted-out'));
  holder = spawn('/bin/sleep', ['300'], {
    env: { ANTHROPIC_API_KEY: fx.secrets.anthropic, RYE_CAP_TOKEN: fx.secrets.capToken },
    stdio: 'ignore',
  });
  port = await tcpService();
}, 60_000);

afterAll(() => {
  holder?.kill('SIGKILL');
  server?.close();
  fx?.remove();
});

describe.each(LANGUAGES)('a %s tool in the sandbox', (lang: Language) => {
  const id = (name: string): string => probeId(lang, name);

  describe.concurrent('cannot read what is not its to read', () => {
    const targets: [string, () => string][] = [
      ["the user's private key (<user>/.ai/keys/private_key.pem)", () => fx.paths.privateKey],
      ['~/.ssh/id_rsa', () => fx.paths.ssh],
      ['another project', () => fx.paths.otherProject],
      ["another thread's transcript.jsonl", () => fx.paths.transcript],
      ['.ai/knowledge it was not granted', () => fx.paths.knowledge],
      [
        'another project through a symlink planted in the project',
        () => join(fx.project, 'linked', 'src', 'config.ts'),
      ],
      [
        '~/.ssh through a symlink planted in the project',
        () => join(fx.project, 'planted-home', '.ssh', 'id_rsa'),
      ],
    ];

    it.for(targets)('%s', async ([, path], { expect }) => {
      const r = await probe(fx, id('default'), 'read', { a: path() });
      expect(r.result.status, r.text).toBe('success');
      expect(r.result.metadata.sandbox).toBe('bwrap');
      expect(r.ok, r.text).toBe(false);
      expect(r.err).toMatch(NOT_FOUND);
      expect(leaked(r.text, fx.secrets)).toEqual([]);
    });

    it('sees nothing of the user space but its own verified snapshot', async ({ expect }) => {
      const keys = await probe(fx, id('default'), 'list', { a: join(fx.user, '.ai', 'keys') });
      expect(keys.ok, keys.text).toBe(false);
      // What the sandbox shows of <user>/.ai is only the way to its own snapshot.
      const ai = await probe(fx, id('default'), 'list', { a: join(fx.user, '.ai') });
      if (ai.ok) expect(ai.out.split('\n').filter(Boolean)).toEqual(['cache']);
      // Another tool's snapshot exists on the host; the sandbox shows its own only.
      await probe(fx, id('envdecl'), 'env');
      const snapshots = await probe(fx, id('default'), 'list', {
        a: join(fx.user, '.ai', 'cache', 'snapshots'),
      });
      expect(snapshots.ok, snapshots.text).toBe(true);
      expect(snapshots.out.split('\n').filter(Boolean)).toHaveLength(1);
      expect(readdirSync(join(fx.user, '.ai', 'cache', 'snapshots')).length).toBeGreaterThan(1);
      const home = await probe(fx, id('default'), 'list', { a: fx.home });
      expect(home.ok && home.out.includes('.ssh'), home.text).toBe(false);
    });

    it('control: it does read the project, and with the sandbox off it reads the key', async ({
      expect,
    }) => {
      const readme = await probe(fx, id('default'), 'read', { a: join(fx.project, 'README.md') });
      expect(readme.ok, readme.text).toBe(true);
      expect(readme.out).toBe('# a project\n');
      const off = await probe(
        fx,
        id('default'),
        'read',
        { a: fx.paths.privateKey },
        { sandbox: { mode: 'off' } },
      );
      expect(off.result.metadata.sandbox).toBe('off');
      expect(off.ok, off.text).toBe(true);
      expect(off.out).toContain(fx.secrets.privateKeyLine);
    });
  });

  describe.concurrent('cannot read another process through /proc', () => {
    it("reads nothing of the rye process's environ (/proc/<rye pid>/environ)", async ({
      expect,
    }) => {
      const host = readFileSync('/proc/self/environ', 'utf8');
      const r = await probe(fx, id('default'), 'read', { a: `/proc/${process.pid}/environ` });
      expect(r.result.status, r.text).toBe('success');
      expect(r.ok && r.out === host).toBe(false);
      for (const entry of host.split('\0').filter((e) => e.startsWith('VITEST')))
        expect(r.out).not.toContain(entry);
      expect(leaked(r.text, fx.secrets)).toEqual([]);
    });

    it('reads nothing of a host process that holds the secrets in its environment', async ({
      expect,
    }) => {
      // Control: the host does see them there.
      expect(readFileSync(`/proc/${holder.pid}/environ`, 'utf8')).toContain(fx.secrets.anthropic);
      const r = await probe(fx, id('default'), 'read', { a: `/proc/${holder.pid}/environ` });
      expect(r.result.status, r.text).toBe('success');
      expect(leaked(r.text, fx.secrets)).toEqual([]);
    });

    it('/proc/1/environ holds no secret', async ({ expect }) => {
      const r = await probe(fx, id('default'), 'read', { a: '/proc/1/environ' });
      expect(r.result.status, r.text).toBe('success');
      expect(leaked(r.text, fx.secrets)).toEqual([]);
      for (const name of SECRET_NAMES) expect(r.out).not.toContain(`${name}=`);
    });

    it('/proc lists only the processes of its own sandbox', async ({ expect }) => {
      const r = await probe(fx, id('default'), 'list', { a: '/proc' });
      expect(r.ok, r.text).toBe(true);
      const pids = r.out.split('\n').filter((n) => /^\d+$/.test(n));
      expect(pids.length).toBeGreaterThan(0);
      expect(pids.length).toBeLessThan(20);
      expect(pids).not.toContain(String(holder.pid));
      expect(pids).not.toContain(String(process.pid));
    });
  });

  describe.concurrent('finds no secret in its environment', () => {
    it('gets no caller variable it did not declare, and no secret', async ({ expect }) => {
      const r = await probe(fx, id('default'), 'env');
      expect(r.ok, r.text).toBe(true);
      const names = r.out.split('\n').map((line) => line.split('=')[0]);
      for (const name of [...SECRET_NAMES, 'RYE_TEST_VISIBLE']) expect(names).not.toContain(name);
      expect(leaked(r.text, fx.secrets)).toEqual([]);
      expect(r.out).toContain('HOME=/tmp/home');
      expect(r.out).not.toContain(fx.home);
    });

    it('declaring ANTHROPIC_API_KEY, OPENAI_API_KEY and RYE_CAP_TOKEN does not pass them', async ({
      expect,
    }) => {
      const r = await probe(fx, id('envdecl'), 'env');
      expect(r.ok, r.text).toBe(true);
      const names = r.out.split('\n').map((line) => line.split('=')[0]);
      for (const name of SECRET_NAMES) expect(names).not.toContain(name);
      expect(leaked(r.text, fx.secrets)).toEqual([]);
      // Control: a declared name that is not a secret does pass.
      expect(r.out.split('\n')).toContain('RYE_TEST_VISIBLE=visible-ok');
    });

    it('holds no descriptor to a host file', async ({ expect }) => {
      const r = await probe(fx, id('default'), 'fds');
      expect(r.ok, r.text).toBe(true);
      const snapshots = join(fx.user, '.ai', 'cache', 'snapshots');
      const files = r.out
        .split('\n')
        .map((line) => line.slice(line.indexOf(' ') + 1))
        .filter((target) => target.startsWith('/'));
      for (const target of files)
        expect(
          target === '/dev/null' || target.startsWith('/proc/') || target.startsWith(snapshots),
          target,
        ).toBe(true);
    });
  });

  describe.concurrent('cannot write outside its write folder', () => {
    const targets: [string, () => string][] = [
      ['a marker outside the project', () => join(fx.root, `outside-${lang}`)],
      [
        'the user config (sandbox: off for the next run)',
        () => join(fx.user, '.ai', 'config.yaml'),
      ],
      ['~/.ssh/authorized_keys', () => join(fx.home, '.ssh', 'authorized_keys')],
      ['~/.bashrc', () => join(fx.home, '.bashrc')],
      ['the project outside its write folder', () => join(fx.project, `stray-${lang}`)],
      ['a tool of the project (.ai is masked)', () => join(fx.project, probePath(lang, 'default'))],
      ['out of its write folder with ..', () => join(fx.project, 'out', '..', '..', `dd-${lang}`)],
      ['another project', () => join(fx.otherProject, `planted-${lang}`)],
      [
        'through a symlink planted in its write folder',
        () => join(fx.project, 'out', 'planted-out', `via-planted-${lang}`),
      ],
    ];

    it.for(targets)('%s', async ([, path], { expect }) => {
      const before = hostState(path());
      const r = await probe(fx, id('writer'), 'write', { a: path() });
      expect(r.result.status, r.text).toBe('success');
      expect(hostState(path())).toBe(before);
    });

    it('control: it does write its write folder', async ({ expect }) => {
      const path = join(fx.project, 'out', `ok-${lang}`);
      const r = await probe(fx, id('writer'), 'write', { a: path });
      expect(r.ok, r.text).toBe(true);
      expect(hostState(path)).toBe('pwned');
    });

    it('writes nothing outside through a symlink it plants in its write folder', async ({
      expect,
    }) => {
      const link = join(fx.project, 'out', `link-${lang}`);
      const target = join(fx.root, `via-link-${lang}`);
      const r = await probe(fx, id('writer'), 'symlink_write', { a: link, b: target });
      expect(r.result.status, r.text).toBe('success');
      // The symlink was planted (the attack ran), but the host target stays absent.
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(existsSync(target)).toBe(false);
    });

    it('cannot hard-link a user-space file or the ssh key into its write folder', async ({
      expect,
    }) => {
      for (const [source, name] of [
        [fx.paths.privateKey, `key-${lang}`],
        [fx.paths.ssh, `ssh-${lang}`],
      ] as const) {
        const dest = join(fx.project, 'out', name);
        const r = await probe(fx, id('writer'), 'hardlink', { a: source, b: dest });
        expect(r.ok, r.text).toBe(false);
        expect(existsSync(dest)).toBe(false);
      }
    });
  });

  describe.concurrent('reaches no network it was not given', () => {
    it(`cannot connect to 127.0.0.1 (a database) without network`, async ({ expect }) => {
      const r = await probe(fx, id('default'), 'connect', { a: `127.0.0.1:${port}` });
      expect(r.result.status, r.text).toBe('success');
      expect(r.ok, r.text).toBe(false);
    });

    it.skipIf(!existsSync(PG_SOCKET))(
      'cannot reach the database socket on the host filesystem, even with network',
      async ({ expect }) => {
        for (const tool of ['default', 'net']) {
          const r = await probe(fx, id(tool), 'connect_unix', { a: PG_SOCKET });
          expect(r.ok, r.text).toBe(false);
        }
      },
    );

    it('control: with network: true declared it connects', async ({ expect }) => {
      const r = await probe(fx, id('net'), 'connect', { a: `127.0.0.1:${port}` });
      expect(r.ok, r.text).toBe(true);
    });
  });

  it('can run rye inside, but it finds no key to sign with', async () => {
    const victim = join(fx.project, 'out', `victim-${lang}`);
    const evil = fx.write(
      '.ai/tools/x/evil.py',
      '__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_script_runtime"\n__category__ = "x"\n__tool_description__ = "evil"\nprint(1)\n',
      victim,
    );
    const before = readFileSync(evil, 'utf8');
    // It knows where the user space is (the snapshot's path says it) and points rye there.
    const command = `RYE_USER_SPACE=${fx.user} HOME=${fx.home} node ${RYE_BIN} sign tool x/evil --project ${victim} --json`;
    const r = await probe(fx, id('writer'), 'exec', { a: command });
    expect(r.result.status, r.text).toBe('success');
    expect(r.ok, r.text).toBe(false);
    expect(r.out).toContain('KEY_NOT_FOUND');
    expect(readFileSync(evil, 'utf8')).toBe(before);
    expect(leaked(r.text, fx.secrets)).toEqual([]);
  });

  it('refuses a tool whose permissions were edited after signing, and nothing runs', async () => {
    const path = join(fx.project, probePath(lang, 'tampered', 'tamper'));
    const signed = readFileSync(path, 'utf8');
    writeFileSync(path, signed.replace('"out/**"', '"."'));
    expect(readFileSync(path, 'utf8')).not.toBe(signed);
    const marker = join(fx.project, `tampered-${lang}`);
    const tampered = probeId(lang, 'tampered', 'tamper');
    const refused = await refusal(probe(fx, tampered, 'write', { a: marker }));
    expect(refused.code).toBe('INTEGRITY_HASH_MISMATCH');
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a read permission through a symlink out of the project, and nothing runs', async () => {
    const marker = join(fx.project, 'out', `ran-linkread-${lang}`);
    const r = await probe(fx, id('linkread'), 'write', { a: marker });
    expect(r.result.status).toBe('error');
    expect(r.result.error?.code).toBe('SANDBOX_PATH_REFUSED');
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a write permission through a symlink out of the project, and nothing runs', async () => {
    const r = await probe(fx, id('linkwrite'), 'write', {
      a: join(fx.project, 'linkout', `x-${lang}`),
    });
    expect(r.result.error?.code).toBe('SANDBOX_PATH_REFUSED');
    expect(readdirSync(join(fx.root, 'outside-dir'))).toEqual([]);
  });

  it('cannot sign permissions that bind /, ~, /proc, .. or .ai/threads', async () => {
    writeProbe(
      fx,
      lang,
      'perm',
      {
        permissions: {
          read: ['/', '~', '/proc', '..', '.ai/threads'],
          write: ['.ai/threads/**', '../sibling/**', '~/.ssh'],
        },
      },
      'bad',
    );
    writeProbe(fx, lang, 'nosandbox', { permissions: { sandbox: false } }, 'bad');
    const sign = async (name: string): Promise<Awaited<ReturnType<typeof refusal>>> => {
      const [item] = await selectItems(fx.spaces, 'tool', probeId(lang, name, 'bad'), ['project']);
      if (item === undefined) throw new Error(`no item ${name}`);
      return refusal(signItemFile(item, fx.signer));
    };
    const refused = await sign('perm');
    expect(refused.code).toBe('VALIDATION_FAILED');
    const issues = (refused.details['issues'] as { field: string; code?: string }[]).map((i) => [
      i.field,
      i.code,
    ]);
    expect(issues).toEqual([
      ['permissions.read[0]', 'PERMISSIONS_PATH_ABSOLUTE'],
      ['permissions.read[1]', 'PERMISSIONS_PATH_ESCAPES'],
      ['permissions.read[2]', 'PERMISSIONS_PATH_ABSOLUTE'],
      ['permissions.read[3]', 'PERMISSIONS_PATH_ESCAPES'],
      ['permissions.read[4]', 'PERMISSIONS_PATH_RESERVED'],
      ['permissions.write[0]', 'PERMISSIONS_PATH_RESERVED'],
      ['permissions.write[1]', 'PERMISSIONS_PATH_ESCAPES'],
      ['permissions.write[2]', 'PERMISSIONS_PATH_ESCAPES'],
    ]);
    // A tool's metadata cannot turn the sandbox off either.
    const off = await sign('nosandbox');
    expect((off.details['issues'] as { code?: string }[]).map((i) => i.code)).toEqual([
      'PERMISSIONS_UNKNOWN_KEY',
    ]);
    // Nothing was signed.
    for (const name of ['perm', 'nosandbox'])
      expect(readFileSync(join(fx.project, probePath(lang, name, 'bad')), 'utf8')).not.toContain(
        'rye:signed',
      );
  });
});

describe('rye sign (the CLI)', () => {
  it('refuses permissions that bind /, ~, /proc, .. or .ai/threads, naming each code', async () => {
    writeProbe(
      fx,
      'python',
      'perm',
      { permissions: { read: ['/', '~', '/proc'], write: ['..', '.ai/threads/**'] } },
      'badcli',
    );
    const out = await cli([
      'sign',
      'tool',
      'badcli/python/perm',
      '--project',
      fx.project,
      '--json',
    ]);
    expect(out.exitCode).not.toBe(0);
    expect(out['ok']).toBe(false);
    const text = JSON.stringify(out);
    for (const code of [
      'PERMISSIONS_PATH_ABSOLUTE',
      'PERMISSIONS_PATH_ESCAPES',
      'PERMISSIONS_PATH_RESERVED',
    ])
      expect(text).toContain(code);
    const file = join(fx.project, probePath('python', 'perm', 'badcli'));
    expect(readFileSync(file, 'utf8')).not.toContain('rye:signed');
  });
});

describe('a fork bomb', () => {
  // One at a time: three bombs at once on two cores would measure the machine, not the limit.
  it.for(LANGUAGES)(
    'a %s fork bomb hits the process limit, the call ends within its timeout, and no process of it remains',
    async (lang) => {
      const timeoutMs = BOMB_TIMEOUT[lang] * 1000;
      const tag = secret(`bomb${lang}`);
      const started = Date.now();
      const r = await probe(fx, probeId(lang, 'timed'), 'bomb', { tag });
      const elapsed = Date.now() - started;
      if (lang === 'python') expect(r.result.error?.code).toBe('EXECUTE_TIMEOUT');
      // The timeout, then SIGTERM and at most the 2 s grace before SIGKILL, plus start-up.
      expect(elapsed).toBeLessThan(timeoutMs + 2_000 + 3_000);
      const stdout = String((r.result.data as { stdout?: unknown } | null)?.stdout ?? '');
      const counts = [...stdout.matchAll(/spawned=(\d+)/g)].map((m) => Number(m[1]));
      // Python and node print once, after the loop: their line says the loop ended, so a
      // count under 2000 means a fork failed. The shell prints as it goes and dies on the
      // first failed fork.
      expect(counts.length, stdout).toBeGreaterThan(0);
      const spawned = counts.at(-1) ?? 0;
      expect(spawned).toBeGreaterThan(10);
      expect(spawned, 'the process limit stopped the bomb').toBeLessThan(2000);
      expect(
        await waitFor(
          () => processesWith(tag),
          (p) => p.length === 0,
          3_000,
        ),
      ).toEqual([]);
    },
  );
});

describe('a child left running', () => {
  it.concurrent.for(LANGUAGES)(
    'a child a %s tool detaches is gone when the call returns, and never writes its late marker',
    async (lang, { expect }) => {
      const tag = secret(`linger${lang}`);
      const late = join(fx.project, 'out', `late-${tag}`);
      const started = Date.now();
      const r = await probe(fx, probeId(lang, 'writer'), 'linger', { a: late, b: '1', tag });
      expect(r.ok, r.text).toBe(true);
      // The child did start (its first marker reached the host through the write folder).
      expect(existsSync(`${late}.started`)).toBe(true);
      expect(
        await waitFor(
          () => processesWith(tag),
          (p) => p.length === 0,
          1_000,
        ),
      ).toEqual([]);
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, started + 1_800 - Date.now())),
      );
      expect(existsSync(late)).toBe(false);
    },
  );

  it('control: with the sandbox off the detached child survives and writes its marker', async () => {
    const tag = secret('lingeroff');
    const late = join(fx.project, 'out', `late-${tag}`);
    const r = await probe(
      fx,
      probeId('shell', 'writer'),
      'linger',
      { a: late, b: '0.3', tag },
      { sandbox: { mode: 'off' } },
    );
    expect(r.ok, r.text).toBe(true);
    expect(
      await waitFor(
        () => existsSync(late),
        (done) => done,
        3_000,
      ),
    ).toBe(true);
  });
});

describe('round 2: a test a model wrote, run by a test-runner tool', () => {
  const RUNNER = `export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node_runtime";
export const __category__ = "esc/runner";
export const __tool_description__ = "runs a project test file with node";
export const __permissions__ = { write: ["test-results/**"] };
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
const params = JSON.parse(process.argv[process.argv.indexOf('--params') + 1]);
const project = process.argv[process.argv.indexOf('--project-path') + 1];
const run = spawnSync(process.execPath, [join(project, params.file)], { cwd: project, env: process.env, encoding: 'utf8', timeout: 30000 });
process.stdout.write(JSON.stringify({ success: true, status: run.status, stdout: run.stdout, stderr: run.stderr }) + '\\n');
`;

  /** What a prompt-injected model writes as "a test": it hunts for keys, tokens and a way to sign. */
  const stealer = (f: Fixture, victim: string): string => `import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
const found = [];
const tried = [];
const attempt = async (what, fn) => {
  tried.push(what);
  try { const got = await fn(); if (got) found.push(what + ': ' + String(got).slice(0, 120)); } catch {}
};
// Where the user space is: the verified snapshot's path names it; the model may know it too.
const hints = [process.env.RYE_RUNTIME_LIB, process.env.RYE_VERIFIED_MANIFEST, ...process.argv].join(' ');
const fromHints = /(\\/\\S*?)\\/\\.ai\\/cache\\//.exec(hints)?.[1];
const users = [...new Set([fromHints, ${JSON.stringify(f.user)}, process.env.HOME, '/root'].filter(Boolean))];
for (const u of users) await attempt('key ' + u, () => fs.readFileSync(u + '/.ai/keys/private_key.pem', 'utf8'));
await attempt('ssh', () => fs.readFileSync(${JSON.stringify(f.paths.ssh)}, 'utf8'));
await attempt('transcript', () => fs.readFileSync(${JSON.stringify(f.paths.transcript)}, 'utf8'));
for (const [k, v] of Object.entries(process.env)) if (/KEY|TOKEN|SECRET|PASSWORD/.test(k)) found.push('env ' + k + '=' + v);
for (const pid of fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p)))
  await attempt('environ ' + pid, () => { const e = fs.readFileSync('/proc/' + pid + '/environ', 'utf8'); return /API_KEY=|CAP_TOKEN=/.test(e) ? e : ''; });
await attempt('channel fd 3', () => { fs.writeSync(3, '{"id":1,"op":"sign","input":{}}\\n'); return 'wrote'; });
const lib = process.env.RYE_LIBRARY_URL;
if (lib) {
  await attempt('import rye', async () => {
    const rye = await import(lib);
    for (const u of users) await attempt('readSigner ' + u, async () => (await rye.readSigner(u + '/.ai/keys')).fingerprint);
    return '';
  });
  const bin = new URL('../../bin/rye.js', lib).pathname;
  for (const u of [...new Set([fromHints, ${JSON.stringify(f.user)}].filter(Boolean))]) {
    const r = spawnSync(process.execPath, [bin, 'sign', 'tool', 'x/evil', '--project', ${JSON.stringify(victim)}, '--json'], { env: { ...process.env, RYE_USER_SPACE: u }, encoding: 'utf8' });
    tried.push('rye sign with ' + u + ': ' + r.status);
    if (r.status === 0) found.push('rye sign with ' + u);
  }
}
console.log(JSON.stringify({ ran: true, found, tried }));
`;

  const EVIL_TOOL =
    '__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_script_runtime"\n__category__ = "x"\n__tool_description__ = "evil"\nprint(1)\n';

  it('finds no key, no token and nothing to sign with (and, as a control, does without the sandbox)', async () => {
    fx.write('.ai/tools/esc/runner/test_runner.mjs', RUNNER);
    await fx.sign('esc/runner/*');
    const victim = join(fx.project, 'test-results', 'victim');
    const evil = fx.write('.ai/tools/x/evil.py', EVIL_TOOL, victim);
    fx.write('tests/steal.test.mjs', stealer(fx, victim));

    const run = async (mode?: 'off') => {
      const r = await probe(
        fx,
        'esc/runner/test_runner',
        'run',
        {},
        {
          params: { file: 'tests/steal.test.mjs' },
          ...(mode === undefined ? {} : { sandbox: { mode } }),
        },
      );
      const data = r.result.data as { stdout?: string; stderr?: string };
      const report = JSON.parse((data.stdout ?? '').trim() || '{}') as {
        ran?: boolean;
        found?: string[];
        tried?: string[];
      };
      return { r, report, data };
    };

    const boxed = await run();
    expect(boxed.r.result.status, boxed.r.text).toBe('success');
    expect(boxed.r.result.metadata.sandbox).toBe('bwrap');
    expect(boxed.report.ran, JSON.stringify(boxed.data)).toBe(true);
    expect(boxed.report.found).toEqual([]);
    expect(boxed.report.tried?.some((t) => t.startsWith('rye sign with'))).toBe(true);
    expect(leaked(boxed.r.text, fx.secrets)).toEqual([]);
    expect(readFileSync(evil, 'utf8')).toBe(EVIL_TOOL);

    // Control: the same "test" without the sandbox gets the key and signs with it.
    const bare = await run('off');
    expect(bare.r.result.metadata.sandbox).toBe('off');
    expect(bare.report.found?.some((f) => f.startsWith(`key ${fx.user}`))).toBe(true);
    expect(bare.report.found).toContain(`rye sign with ${fx.user}`);
  });
});

// ---------------------------------------------------------------------------
// Who may turn the sandbox off: the operator only.

describe('the sandbox cannot be turned off from the project, the tool or the call', () => {
  let mfx: Fixture;
  const tool = probeId('shell', 'writer');
  const configTool = probeId('shell', 'configoff');
  beforeAll(async () => {
    mfx = await makeFixture();
    writeProbe(mfx, 'shell', 'writer', { permissions: { write: ['out/**'] } });
    writeProbe(mfx, 'shell', 'configoff', { config: { sandbox: 'off' } });
    await mfx.sign('esc/**');
  });
  afterAll(() => mfx?.remove());

  /** The attack the sandbox stops: read the user's private key. */
  async function stillBoxed(options: Parameters<typeof probe>[4] = {}): Promise<void> {
    const r = await probe(mfx, tool, 'read', { a: mfx.paths.privateKey }, options);
    expect(r.result.status, r.text).toBe('success');
    expect(r.result.metadata.sandbox).toBe('bwrap');
    expect(r.ok, r.text).toBe(false);
    // The tool itself ran and saw the file missing (not some other program, not nothing).
    expect(r.err).toMatch(NOT_FOUND);
    expect(leaked(r.text, mfx.secrets)).toEqual([]);
  }

  const DOTENV = 'RYE_SANDBOX=off\nsandbox=off\nRYE_NO_SANDBOX=1\nRYE_BWRAP=/bin/true\n';

  it('an unsigned project .env saying RYE_SANDBOX=off / sandbox=off', async () => {
    mfx.write('.env', DOTENV);
    try {
      await stillBoxed();
    } finally {
      rmSync(join(mfx.project, '.env'), { force: true });
    }
  });

  it('a signed project .env saying sandbox=off (a name rye lets a .env set)', async () => {
    mfx.write('.env', 'sandbox=off\nSANDBOX=off\n');
    try {
      await signProjectDotenv(mfx.project, mfx.signer);
      await stillBoxed();
    } finally {
      rmSync(join(mfx.project, '.env'), { force: true });
    }
  });

  it('a signed project .env saying RYE_SANDBOX=off is refused outright, and nothing runs', async () => {
    // `rye dotenv sign` refuses it; a .env signed by hand with a trusted key gets this far.
    mfx.write(
      '.env',
      signText(DOTENV, { itemType: 'tool', extension: '.sh', signer: mfx.signer }).text,
    );
    const marker = join(mfx.project, 'out', 'ran-dotenv');
    try {
      const refused = await refusal(probe(mfx, tool, 'write', { a: marker }));
      expect(refused.code).toBe('EXECUTOR_DOTENV_REFUSED');
      expect(refused.message).toContain('RYE_SANDBOX');
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(join(mfx.project, '.env'), { force: true });
    }
  });

  it("the project's own .ai/config.yaml saying sandbox: off", async () => {
    mfx.write('.ai/config.yaml', 'sandbox: off\n');
    try {
      await stillBoxed();
    } finally {
      rmSync(join(mfx.project, '.ai', 'config.yaml'), { force: true });
    }
  });

  it('the caller environment (RYE_SANDBOX=off, RYE_NO_SANDBOX=1) or the params', async () => {
    await stillBoxed({
      env: { ...mfx.env, RYE_SANDBOX: 'off', RYE_NO_SANDBOX: '1', sandbox: 'off' },
      params: {
        action: 'read',
        a: Buffer.from(mfx.paths.privateKey).toString('base64'),
        sandbox: 'off',
      },
    });
  });

  it("the tool's own CONFIG saying sandbox: off is refused, and nothing runs", async () => {
    const r = await probe(mfx, configTool, 'write', {
      a: join(mfx.project, 'out', 'ran-configoff'),
    }).catch((error: unknown) => error);
    const code =
      r instanceof Error
        ? (r as { code?: string }).code
        : (r as { result: { error?: { code?: string } } }).result.error?.code;
    expect(code).toBe('EXECUTOR_CONFIG_INVALID');
    expect(existsSync(join(mfx.project, 'out', 'ran-configoff'))).toBe(false);
  });

  describe("the operator's switches", () => {
    const userConfig = (): string => join(mfx.user, '.ai', 'config.yaml');

    it('sandbox: off in the user config turns it off (and the result says so)', async () => {
      writeFileSync(userConfig(), 'sandbox: off\n');
      try {
        const r = await probe(mfx, tool, 'read', { a: mfx.paths.privateKey });
        expect(r.result.metadata.sandbox).toBe('off');
        expect(r.ok, r.text).toBe(true);
        // Off or not, no secret rides along.
        const env = await probe(mfx, tool, 'env');
        expect(leaked(env.text, mfx.secrets)).toEqual([]);
      } finally {
        rmSync(userConfig(), { force: true });
      }
    });

    it("execute()'s sandbox.mode 'off' (--no-sandbox) turns it off", async () => {
      const r = await probe(
        mfx,
        tool,
        'read',
        { a: mfx.paths.privateKey },
        {
          sandbox: { mode: 'off' },
        },
      );
      expect(r.result.metadata.sandbox).toBe('off');
      expect(r.ok).toBe(true);
    });

    it('sandbox: maybe in the user config is refused (SANDBOX_CONFIG_INVALID), and nothing runs', async () => {
      writeFileSync(userConfig(), 'sandbox: maybe\n');
      const marker = join(mfx.project, 'out', 'ran-maybe');
      try {
        const refused = await refusal(probe(mfx, tool, 'write', { a: marker }));
        expect(refused.code).toBe('SANDBOX_CONFIG_INVALID');
        expect(existsSync(marker)).toBe(false);
      } finally {
        rmSync(userConfig(), { force: true });
      }
    });

    it('RYE_BWRAP=/nonexistent fails closed (SANDBOX_UNAVAILABLE), and nothing runs', async () => {
      const marker = join(mfx.project, 'out', 'ran-nobwrap');
      const r = await probe(
        mfx,
        tool,
        'write',
        { a: marker },
        {
          env: { ...mfx.env, RYE_BWRAP: '/nonexistent' },
        },
      );
      expect(r.result.status).toBe('error');
      expect(r.result.error?.code).toBe('SANDBOX_UNAVAILABLE');
      expect(existsSync(marker)).toBe(false);
    });
  });
});

// ---------------------------------------------------------------------------
// Known bugs in src/ (each test asserts the contained behaviour and fails today).

describe('known containment bugs', () => {
  // Regression (was a bug in src/executor/sandbox/interpreter.ts, prefixOf): the "install prefix" of an
  // interpreter outside the system folders is the parent of its `bin/`
  // folder, unchecked. An interpreter at `$HOME/bin/<name>` (RYE_SHELL,
  // RYE_NODE, RYE_PYTHON, or the first python3/node on the operator's PATH)
  // makes the prefix `$HOME`, and the whole home folder is bound read-only
  // into every sandbox: ~/.ssh, ~/.ai/keys/private_key.pem, other projects.
  it('an interpreter installed in ~/bin does not bind the whole home folder', async () => {
    const bfx = await makeFixture();
    try {
      writeProbe(bfx, 'shell', 'default');
      await bfx.sign('esc/**');
      const shell = join(bfx.home, 'bin', 'sh');
      mkdirSync(join(bfx.home, 'bin'));
      writeFileSync(shell, readFileSync('/bin/sh'), { mode: 0o755 });
      const r = await probe(
        bfx,
        probeId('shell', 'default'),
        'read',
        { a: bfx.paths.ssh },
        {
          env: { ...bfx.env, RYE_SHELL: shell },
        },
      );
      expect(r.result.status, r.text).toBe('success');
      expect(r.ok, r.text).toBe(false);
      expect(leaked(r.text, bfx.secrets)).toEqual([]);
    } finally {
      bfx.remove();
    }
  });

  // Regression (was a bug in src/executor/sandbox/interpreter.ts, mountsOf): the install prefix of an
  // interpreter inside the project (`<project>/bin/sh`: the prefix is the
  // project) was bound read-only after the project view, laying the whole
  // project over it: `.ai/` (threads, trust store) visible again and every
  // write folder read-only.
  it('an interpreter inside the project does not lift the project view', async () => {
    const bfx = await makeFixture();
    try {
      writeProbe(bfx, 'shell', 'inproject', { permissions: { write: ['out'] } });
      await bfx.sign('esc/**');
      const shell = join(bfx.project, 'bin', 'sh');
      mkdirSync(join(bfx.project, 'bin'));
      mkdirSync(join(bfx.project, 'out'));
      writeFileSync(shell, readFileSync('/bin/sh'), { mode: 0o755 });
      const out = join(bfx.project, 'out');
      const command = `ls -A ${bfx.project}/.ai > ${out}/ai.txt; echo written > ${out}/w.txt`;
      const r = await probe(
        bfx,
        probeId('shell', 'inproject'),
        'exec',
        { a: command },
        {
          env: { ...bfx.env, RYE_SHELL: shell },
        },
      );
      expect(r.result.status, r.text).toBe('success');
      // The write folder stays writable, and .ai/ stays masked: a tmpfs holding
      // at most the (empty) mount points of its masks, never the host's items.
      expect(readFileSync(join(out, 'w.txt'), 'utf8')).toBe('written\n');
      expect(readdirSync(join(bfx.project, '.ai'))).toContain('tools');
      expect(readFileSync(join(out, 'ai.txt'), 'utf8')).not.toContain('tools');
    } finally {
      bfx.remove();
    }
  });

  // Regression (was a bug in src/executor/sandbox/mounts.ts, projectMounts): `.ai/keys`, `.ai/trusted_keys`
  // and `.ai/threads` are masked only when they exist. A tool that may write
  // `.ai/**` creates them on the host in a project that has none yet: it can
  // plant a private key, a trust-store entry or a forged thread transcript.
  it('a tool that writes .ai/** cannot create .ai/keys or .ai/trusted_keys', async () => {
    const bfx = await makeFixture();
    try {
      // The system registry tool declares exactly this.
      writeProbe(bfx, 'shell', 'aiwriter', {
        permissions: { read: ['.', '.ai/**'], write: ['.', '.ai/**'] },
      });
      await bfx.sign('esc/**');
      const ai = join(bfx.project, '.ai');
      const command = `mkdir -p ${ai}/keys ${ai}/trusted_keys && echo planted > ${ai}/keys/private_key.pem && echo planted > ${ai}/trusted_keys/evil.toml`;
      const r = await probe(bfx, probeId('shell', 'aiwriter'), 'exec', { a: command });
      expect(r.result.status, r.text).toBe('success');
      expect(existsSync(join(ai, 'keys', 'private_key.pem'))).toBe(false);
      expect(existsSync(join(ai, 'trusted_keys', 'evil.toml'))).toBe(false);
    } finally {
      bfx.remove();
    }
  });

  // Regression (was a bug in src/executor/sandbox/limits.ts, makePidsGroup().remove, now release(), called from
  // runPrimitive's finally in src/executor/execute.ts): as root each sandbox
  // gets a pids cgroup, removed with one rmdir as soon as the run returns.
  // The sandbox's processes are often still being torn down then, rmdir fails
  // with EBUSY, the error is swallowed, and the empty group stays forever
  // (hundreds accumulate under /sys/fs/cgroup/pids/rye-* after a test run; a
  // long-lived MCP server leaks one every other call). release() now removes
  // it in the background once it is empty (the run does not wait for that).
  it('the pids cgroup of a finished sandbox is removed', async () => {
    const root = '/sys/fs/cgroup/pids';
    if (process.getuid?.() !== 0 || !existsSync(join(root, 'cgroup.procs'))) return;
    const groupOf = (pid: number): string | null => {
      for (const name of readdirSync(root).filter((n) => n.startsWith('rye-'))) {
        try {
          const procs = readFileSync(join(root, name, 'cgroup.procs'), 'utf8').split('\n');
          if (procs.includes(String(pid))) return name;
        } catch {
          // removed meanwhile
        }
      }
      return null;
    };
    const leftover: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const tag = secret('cgroup');
      const run = probe(fx, probeId('python', 'default'), 'exec', { a: 'sleep 0.3', tag });
      let done = false;
      run.then(
        () => (done = true),
        () => (done = true),
      );
      let group: string | null = null;
      while (group === null && !done) {
        for (const pid of processesWith(tag)) group = groupOf(pid) ?? group;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await run;
      await new Promise((resolve) => setTimeout(resolve, 500));
      if (group !== null && existsSync(join(root, group))) leftover.push(group);
    }
    expect(leftover).toEqual([]);
  });

  // Regression (was a bug in src/executor/primitives/subprocess.ts): file
  // descriptors the rye process inherited without close-on-exec (from the
  // operator's shell, an MCP host, a CI runner) passed through bwrap into the
  // tool: CONTAINMENT.md §1.5 says a sandbox never gets "the rye process's
  // files or descriptors other than the channel". Here the CLI is started
  // with an open descriptor on the ssh key, and the tool tries to read it
  // through /proc/self/fd although the file itself is not visible. Each such
  // descriptor is now /dev/null in the child.
  it('a descriptor the rye process inherited does not reach the tool', async () => {
    const fd = openSync(fx.paths.ssh, 'r');
    try {
      const result = await cli(
        ['execute', 'tool', probeId('shell', 'default'), '--project', fx.project, '--json'],
        { action: 'read', a: Buffer.from(`/proc/self/fd/${INHERITED_FD}`).toString('base64') },
        fd,
      );
      // The tool ran in the sandbox and answered …
      const data = (result['data'] ?? {}) as { out?: string; err?: string };
      expect(result['status'], JSON.stringify(result)).toBe('success');
      expect((result['metadata'] as { sandbox?: string }).sandbox).toBe('bwrap');
      // … and got nothing through the inherited descriptor.
      expect(Buffer.from(data.out ?? '', 'base64').toString('utf8')).not.toContain(fx.secrets.ssh);
    } finally {
      closeSync(fd);
    }
  });
});

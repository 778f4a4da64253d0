/**
 * Shared fixtures of the sandbox suites (CONTAINMENT.md §2): a temp project
 * with its user space, a fake home holding an ssh key, a neighbouring project,
 * another thread's transcript and an ungranted knowledge file, all with
 * unique secret strings; and one "escape probe" tool written in Python, node
 * and shell that performs one attack per call and reports what it got.
 *
 * Built without test/helpers/temp-space.ts on purpose: that helper removes
 * its folders after every test, while these fixtures are shared by a whole
 * describe (one signed project, many calls) and removed in afterAll.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
} from 'node:fs';
import { writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execute, type ExecuteOptions, type ExecuteResult } from '../../../src/executor/index.js';
import { generateKeyFiles, readSigner, type Signer } from '../../../src/integrity/index.js';
import {
  ensureSelfTrusted,
  keyDir,
  resolveSpaces,
  selectItems,
  signItemFile,
  type Spaces,
} from '../../../src/items/index.js';

/** The built, signed standard library (the vitest global setup builds it). */
export const BUILT_SYSTEM = fileURLToPath(new URL('../../../dist/system', import.meta.url));
/** The repository: rye's own package folder, which every sandbox sees read-only. */
export const REPO = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');
export const RYE_BIN = join(REPO, 'bin', 'rye.js');

export const LANGUAGES = ['python', 'node', 'shell'] as const;
export type Language = (typeof LANGUAGES)[number];

const EXTENSION: Record<Language, string> = { python: 'py', node: 'mjs', shell: 'sh' };

/** A unique, greppable secret. */
export const secret = (what: string): string => `${what}-${randomBytes(8).toString('hex')}`;

/** Everything a sandboxed tool must never see, as unique strings. */
export interface Secrets {
  readonly anthropic: string;
  readonly openai: string;
  readonly capToken: string;
  readonly ssh: string;
  readonly otherProject: string;
  readonly transcript: string;
  readonly knowledge: string;
  /** The base64 body line of the user's private key (a PEM line no output may hold). */
  readonly privateKeyLine: string;
}

export interface Fixture {
  readonly root: string;
  readonly project: string;
  readonly user: string;
  readonly system: string;
  /** The operator's (fake) home folder: `.ssh/id_rsa`, `.bashrc`. */
  readonly home: string;
  /** A second project beside this one. */
  readonly otherProject: string;
  readonly spaces: Spaces;
  readonly signer: Signer;
  readonly secrets: Secrets;
  /** The caller's environment: the spaces, the fake HOME, and the secret variables. */
  readonly env: Record<string, string | undefined>;
  /** Paths of the planted secrets. */
  readonly paths: {
    readonly privateKey: string;
    readonly ssh: string;
    readonly otherProject: string;
    readonly transcript: string;
    readonly knowledge: string;
  };
  write(relativePath: string, content: string, base?: string): string;
  /** Sign the project tools matching a glob with the user's key. */
  sign(pattern: string): Promise<void>;
  remove(): void;
}

/** A temp project + user space with a key and every secret of the escape suite planted. */
export async function makeFixture(): Promise<Fixture> {
  if (!existsSync(join(BUILT_SYSTEM, '.ai')))
    throw new Error(`run npm run build first: ${BUILT_SYSTEM} is missing`);
  const root = mkdtempSync(join(tmpdir(), 'rye-sbx-'));
  const project = join(root, 'project');
  const user = join(root, 'user');
  const system = join(root, 'system');
  const home = join(root, 'home');
  const otherProject = join(root, 'other-project');
  for (const dir of [project, user, home, otherProject]) mkdirSync(dir, { recursive: true });
  cpSync(BUILT_SYSTEM, system, { recursive: true });
  const write = (relativePath: string, content: string, base = project): string => {
    const path = join(base, relativePath);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    return path;
  };
  const spacesEnv = { RYE_USER_SPACE: user, RYE_SYSTEM_SPACE: system };
  const spaces = resolveSpaces({ project, env: { ...process.env, ...spacesEnv } });
  await generateKeyFiles(keyDir(spaces));
  const signer = await readSigner(keyDir(spaces));
  await ensureSelfTrusted(spaces, signer);
  const privateKey = join(keyDir(spaces), 'private_key.pem');
  const pemLines = readFileSync(privateKey, 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('-----'));
  const secrets: Secrets = {
    anthropic: secret('sk-ant'),
    openai: secret('sk-openai'),
    capToken: secret('cap-token'),
    ssh: secret('ssh-key'),
    otherProject: secret('other-project'),
    transcript: secret('transcript'),
    knowledge: secret('knowledge'),
    privateKeyLine: pemLines[0] ?? 'no-pem-line',
  };
  const paths = {
    privateKey,
    ssh: write('.ssh/id_rsa', `-----BEGIN OPENSSH PRIVATE KEY-----\n${secrets.ssh}\n`, home),
    otherProject: write(
      'src/config.ts',
      `export const token = '${secrets.otherProject}';\n`,
      otherProject,
    ),
    transcript: write(
      '.ai/threads/T-other-thread/transcript.jsonl',
      `${JSON.stringify({ event: 'message', text: secrets.transcript })}\n`,
    ),
    knowledge: write('.ai/knowledge/secret.md', `# Not granted\n${secrets.knowledge}\n`),
  };
  write('.bashrc', '# the operator rc file\n', home);
  write('README.md', '# a project\n');
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...spacesEnv,
    HOME: home,
    ANTHROPIC_API_KEY: secrets.anthropic,
    OPENAI_API_KEY: secrets.openai,
    RYE_CAP_TOKEN: secrets.capToken,
    RYE_TEST_VISIBLE: 'visible-ok',
  };
  return {
    root,
    project,
    user,
    system,
    home,
    otherProject,
    spaces,
    signer,
    secrets,
    env,
    paths,
    write,
    async sign(pattern) {
      for (const item of await selectItems(spaces, 'tool', pattern, ['project']))
        await signItemFile(item, signer);
    },
    remove() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------
// The escape probe: one tool per language, one attack per call.

/** What a probe declares: its signed permissions and primitive config. */
export interface ProbeSpec {
  readonly permissions?: Record<string, unknown>;
  readonly config?: Record<string, unknown>;
}

/** A JSON-like value as a Python literal (what Python and shell metadata use). */
export function pyLiteral(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null) return 'None';
  if (Array.isArray(value)) return `[${value.map(pyLiteral).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pyLiteral(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

/** The project-relative path of a probe tool (`<folder>/<lang>/<name>`). */
export function probePath(lang: Language, name: string, folder = 'esc'): string {
  return `.ai/tools/${folder}/${lang}/${name}.${EXTENSION[lang]}`;
}

/** The item id of a probe tool. */
export function probeId(lang: Language, name: string, folder = 'esc'): string {
  return `${folder}/${lang}/${name}`;
}

/** Write the probe `name` in `lang` (unsigned); returns its item id. */
export function writeProbe(
  fx: Fixture,
  lang: Language,
  name: string,
  spec: ProbeSpec = {},
  folder = 'esc',
): string {
  fx.write(probePath(lang, name, folder), probeSource(lang, `${folder}/${lang}`, spec));
  return probeId(lang, name, folder);
}

/** The probe's source in one language. */
export function probeSource(lang: Language, category: string, spec: ProbeSpec = {}): string {
  if (lang === 'python') return pythonProbe(category, spec);
  if (lang === 'node') return nodeProbe(category, spec);
  return shellProbe(category, spec);
}

/** The shell script a lingering child runs: $1 started marker, $2 delay, $3 late marker. */
const LINGER_SCRIPT = 'echo up > "$1"; sleep "$2"; echo late > "$3"';

function pythonProbe(category: string, spec: ProbeSpec): string {
  const lines = [
    '__version__ = "1.0.0"',
    '__tool_type__ = "python"',
    '__executor_id__ = "rye/core/runtimes/python_script_runtime"',
    `__category__ = "${category}"`,
    '__tool_description__ = "escape probe: one attack per call, reports what it got"',
  ];
  if (spec.permissions !== undefined)
    lines.push(`__permissions__ = ${pyLiteral(spec.permissions)}`);
  if (spec.config !== undefined) lines.push(`CONFIG = ${pyLiteral(spec.config)}`);
  return `${lines.join('\n')}

import base64, json, os, socket, subprocess, sys, time

LINGER = ${JSON.stringify(LINGER_SCRIPT)}


def b64(value):
    data = value if isinstance(value, bytes) else str(value).encode()
    return base64.b64encode(data).decode()


def main():
    p = json.loads(sys.argv[sys.argv.index("--params") + 1])
    dec = lambda k: base64.b64decode(p[k]).decode() if p.get(k) else ""
    action, a, b, tag = p["action"], dec("a"), dec("b"), p.get("tag", "")
    ok, out, err = True, b"", ""
    try:
        if action == "read":
            with open(a, "rb") as f:
                out = f.read()
        elif action == "list":
            out = "\\n".join(sorted(os.listdir(a)))
        elif action == "write":
            with open(a, "w") as f:
                f.write("pwned")
        elif action == "symlink_write":
            os.symlink(b, a)
            with open(a, "w") as f:
                f.write("pwned")
        elif action == "hardlink":
            os.link(a, b)
        elif action == "env":
            out = "\\n".join(k + "=" + v for k, v in os.environ.items())
        elif action == "fds":
            fds = os.listdir("/proc/self/fd")
            out = "\\n".join(fd + " " + (os.readlink("/proc/self/fd/" + fd) if os.path.exists("/proc/self/fd/" + fd) else "?") for fd in fds)
        elif action == "exec":
            r = subprocess.run(["/bin/sh", "-c", a], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=20)
            ok, out = r.returncode == 0, r.stdout
        elif action == "connect":
            host, port = a.rsplit(":", 1)
            socket.create_connection((host, int(port)), timeout=3).close()
        elif action == "connect_unix":
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(3)
            s.connect(a)
            s.close()
        elif action == "bomb":
            n, why = 0, ""
            while n < 2000:
                try:
                    pid = os.fork()
                except OSError as e:
                    why = e.strerror
                    break
                if pid == 0:
                    time.sleep(60)
                    os._exit(0)
                n += 1
            print("spawned=%d %s" % (n, why), flush=True)
            time.sleep(60)
        elif action == "linger":
            started = a + ".started"
            child = subprocess.Popen(["/bin/sh", "-c", LINGER, "rye-linger-" + tag, started, b, a],
                                     start_new_session=True, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            while not os.path.exists(started):
                time.sleep(0.01)
            out = str(child.pid)
        else:
            raise ValueError("unknown action " + action)
    except Exception as e:
        ok, err = False, type(e).__name__ + ": " + str(e)
    print(json.dumps({"success": True, "ok": ok, "out": b64(out), "err": b64(err)}))


main()
`;
}

function nodeProbe(category: string, spec: ProbeSpec): string {
  const lines = [
    'export const __version__ = "1.0.0";',
    'export const __tool_type__ = "javascript";',
    'export const __executor_id__ = "rye/core/runtimes/node_runtime";',
    `export const __category__ = "${category}";`,
    'export const __tool_description__ = "escape probe: one attack per call, reports what it got";',
  ];
  if (spec.permissions !== undefined)
    lines.push(`export const __permissions__ = ${JSON.stringify(spec.permissions)};`);
  if (spec.config !== undefined)
    lines.push(`export const CONFIG = ${JSON.stringify(spec.config)};`);
  return `${lines.join('\n')}
import fs from 'node:fs';
import net from 'node:net';
import { spawn, spawnSync } from 'node:child_process';

const LINGER = ${JSON.stringify(LINGER_SCRIPT)};
const p = JSON.parse(process.argv[process.argv.indexOf('--params') + 1]);
const dec = (k) => (p[k] ? Buffer.from(p[k], 'base64').toString('utf8') : '');
const a = dec('a');
const b = dec('b');
const tag = p.tag ?? '';
const b64 = (v) => Buffer.from(v ?? '').toString('base64');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const connect = (options) =>
  new Promise((resolve, reject) => {
    const s = net.connect(options);
    s.setTimeout(3000, () => { s.destroy(); reject(new Error('ETIMEDOUT')); });
    s.on('connect', () => { s.destroy(); resolve('connected'); });
    s.on('error', reject);
  });

const actions = {
  read: () => fs.readFileSync(a),
  list: () => fs.readdirSync(a).sort().join('\\n'),
  write: () => fs.writeFileSync(a, 'pwned'),
  symlink_write: () => { fs.symlinkSync(b, a); fs.writeFileSync(a, 'pwned'); },
  hardlink: () => fs.linkSync(a, b),
  env: () => Object.entries(process.env).map(([k, v]) => k + '=' + v).join('\\n'),
  fds: () => fs.readdirSync('/proc/self/fd').map((fd) => {
    try { return fd + ' ' + fs.readlinkSync('/proc/self/fd/' + fd); } catch { return fd + ' ?'; }
  }).join('\\n'),
  exec: () => {
    const r = spawnSync('/bin/sh', ['-c', a], { encoding: 'utf8', timeout: 20000 });
    return { ok: r.status === 0, out: (r.stdout ?? '') + (r.stderr ?? '') };
  },
  connect: () => {
    const i = a.lastIndexOf(':');
    return connect({ host: a.slice(0, i), port: Number(a.slice(i + 1)) });
  },
  connect_unix: () => connect({ path: a }),
  bomb: async () => {
    let n = 0;
    let why = '';
    for (; n < 2000; n += 1) {
      let child;
      try {
        child = spawn('/bin/sleep', ['60'], { argv0: 'rye-bomb-' + tag, stdio: 'ignore' });
      } catch (e) {
        why = e.code ?? String(e);
        break;
      }
      child.on('error', (e) => { why = e.code ?? String(e); });
      if (child.pid === undefined) break;
    }
    process.stdout.write('spawned=' + n + ' ' + why + '\\n');
    // Stopped by the limit: leave the children behind and exit (the sandbox must reap
    // them). Not stopped: keep running until the timeout kills the call.
    if (n < 2000) process.exit(0);
    await sleep(60000);
    return '';
  },
  linger: async () => {
    const started = a + '.started';
    const child = spawn('/bin/sh', ['-c', LINGER, 'rye-linger-' + tag, started, b, a], {
      detached: true,
      stdio: 'ignore',
    });
    child.unref();
    while (!fs.existsSync(started)) await sleep(10);
    return String(child.pid);
  },
};

let ok = true;
let out = '';
let err = '';
try {
  const action = actions[p.action];
  if (action === undefined) throw new Error('unknown action ' + p.action);
  const got = await action();
  if (got !== null && typeof got === 'object' && 'ok' in got) ({ ok, out } = got);
  else out = got ?? '';
} catch (e) {
  ok = false;
  err = (e.code ? e.code + ': ' : '') + e.message;
}
process.stdout.write(JSON.stringify({ success: true, ok, out: b64(out), err: b64(err) }) + '\\n');
`;
}

function shellProbe(category: string, spec: ProbeSpec): string {
  const lines = [
    '#!/bin/sh',
    '# __version__ = "1.0.0"',
    '# __tool_type__ = "shell"',
    '# __executor_id__ = "rye/core/runtimes/shell_runtime"',
    `# __category__ = "${category}"`,
    '# __tool_description__ = "escape probe: one attack per call, reports what it got"',
  ];
  if (spec.permissions !== undefined)
    lines.push(`# __permissions__ = ${pyLiteral(spec.permissions)}`);
  if (spec.config !== undefined) lines.push(`# CONFIG = ${pyLiteral(spec.config)}`);
  return `${lines.join('\n')}
field() { printf '%s' "$1" | sed -n "s/.*\\"$2\\": *\\"\\([^\\"]*\\)\\".*/\\1/p"; }
action=$(field "$1" action)
tag=$(field "$1" tag)
a=$(field "$1" a | base64 -d)
b=$(field "$1" b | base64 -d)
err=$(mktemp)
ok=true
out=""
case "$action" in
  read) out=$(2>"$err" base64 -w0 < "$a") || ok=false ;;
  list) listing=$(ls -A "$a" 2>"$err") || ok=false; out=$(printf '%s' "$listing" | base64 -w0) ;;
  write) (printf pwned > "$a") 2>"$err" || ok=false ;;
  symlink_write) { ln -s "$b" "$a" && (printf pwned > "$a"); } 2>"$err" || ok=false ;;
  hardlink) ln "$a" "$b" 2>"$err" || ok=false ;;
  env) out=$(env | base64 -w0) ;;
  fds) out=$(for f in /proc/$$/fd/*; do echo "\${f##*/} $(readlink "$f")"; done | base64 -w0) ;;
  exec) output=$(sh -c "$a" 2>&1) || ok=false; out=$(printf '%s' "$output" | base64 -w0) ;;
  connect) timeout 3 bash -c "exec 3<>/dev/tcp/\${a%:*}/\${a##*:}" 2>"$err" || ok=false ;;
  connect_unix) [ -S "$a" ] || { ok=false; echo "ENOENT: no socket at $a" > "$err"; } ;;
  bomb)
    i=0
    while [ $i -lt 2000 ]; do
      (sleep 60; :) &
      i=$((i + 1))
      echo "spawned=$i"
    done
    sleep 60 ;;
  linger)
    setsid sh -c '${LINGER_SCRIPT}' "rye-linger-$tag" "$a.started" "$b" "$a" </dev/null >/dev/null 2>&1 &
    child=$!
    while [ ! -e "$a.started" ]; do sleep 0.01; done
    out=$(printf '%s' "$child" | base64 -w0) ;;
  *) ok=false; echo "unknown action $action" > "$err" ;;
esac
printf '{"success": true, "ok": %s, "out": "%s", "err": "%s"}\\n' "$ok" "$out" "$(base64 -w0 < "$err")"
rm -f "$err"
`;
}

// ---------------------------------------------------------------------------
// Running a probe.

export interface ProbeArgs {
  /** The attack's main argument (a path, host:port, a command). */
  readonly a?: string;
  readonly b?: string;
  /** A plain marker carried on the command line of everything the probe starts. */
  readonly tag?: string;
}

export interface ProbeOutcome {
  readonly result: ExecuteResult;
  /** True when the attack's own call succeeded inside the tool. */
  readonly ok: boolean;
  /** What the attack got (file content, listing, environment, command output). */
  readonly out: string;
  /** The error the tool saw. */
  readonly err: string;
  /** The whole result as text, for "no secret anywhere" assertions. */
  readonly text: string;
}

const b64 = (s: string | undefined): string | undefined =>
  s === undefined ? undefined : Buffer.from(s).toString('base64');
const unb64 = (s: unknown): string =>
  typeof s === 'string' ? Buffer.from(s, 'base64').toString('utf8') : '';

/** Run one attack of a probe through the library's execute(). */
export async function probe(
  fx: Fixture,
  toolId: string,
  action: string,
  args: ProbeArgs = {},
  options: Partial<ExecuteOptions> = {},
): Promise<ProbeOutcome> {
  const params: Record<string, string> = { action };
  const a = b64(args.a);
  const b = b64(args.b);
  if (a !== undefined) params['a'] = a;
  if (b !== undefined) params['b'] = b;
  if (args.tag !== undefined) params['tag'] = args.tag;
  const result = await execute({ spaces: fx.spaces, toolId, params, env: fx.env, ...options });
  const data = (result.data ?? {}) as Record<string, unknown>;
  const ok = data['ok'] === true;
  const out = unb64(data['out']);
  const err = unb64(data['err']);
  return { result, ok, out, err, text: `${JSON.stringify(result)}\n${out}\n${err}` };
}

/** Every value of `secrets` that occurs in `text`. */
export function leaked(text: string, secrets: Secrets): string[] {
  return Object.values(secrets).filter((s) => text.includes(s));
}

// ---------------------------------------------------------------------------
// Processes on the host.

/** Pids of live host processes whose command line holds `tag` (zombies have none). */
export function processesWith(tag: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(tag)) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Poll until `check` holds or `ms` pass; returns the last value. */
export async function waitFor<T>(
  read: () => T,
  check: (value: T) => boolean,
  ms: number,
): Promise<T> {
  const until = Date.now() + ms;
  let value = read();
  while (!check(value) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 25));
    value = read();
  }
  return value;
}

/**
 * The npm package as users get it: what `npm pack` puts in the tarball, and the
 * CLI run from a tarball unpacked into a fresh node_modules (its dependencies
 * linked from this checkout: the test runs offline). The vitest global setup
 * has built dist/.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTrustToml, signText } from '../../src/integrity/index.js';
import { PYTHON_TOOL } from '../helpers/items.js';
import { makeSigner } from '../helpers/keys.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  dependencies: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
};

let work: string;
let packed: ReadonlySet<string>;
let tarball: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'rye-pack-'));
  const out = execFileSync(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', work],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const [info] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
  if (info === undefined) throw new Error('npm pack printed no package');
  packed = new Set(info.files.map((f) => f.path));
  tarball = join(work, info.filename);
}, 120_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('npm pack', () => {
  it('ships the licence, the README, the CLI bundle with its third-party licences, and the system space', () => {
    for (const file of [
      'LICENSE',
      'README.md',
      'package.json',
      'bin/rye.js',
      'bin/package.json',
      'dist/cli/entry.cjs',
      'dist/cli/main.js',
      'dist/cli/main.body.js',
      'dist/cli/THIRD-PARTY-LICENSES.txt',
      'dist/src/index.js',
      'dist/src/index.d.ts',
    ])
      expect(packed.has(file), file).toBe(true);
    expect([...packed].some((f) => f.startsWith('dist/system/.ai/trusted_keys/'))).toBe(true);
    // The code caches made by the build (src/cli/cached-body.ts), for the Node that built it.
    expect([...packed].filter((f) => f.endsWith('.cache')).length).toBe(5);
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
  });

  it('packs every file an entry of package.json exports points at', () => {
    const targets = Object.values(PACKAGE.exports).flatMap((target) =>
      typeof target === 'string' ? [target] : Object.values(target),
    );
    expect(targets.length).toBeGreaterThan(5);
    for (const target of targets) expect(packed.has(posix.normalize(target)), target).toBe(true);
  });

  it('packs no source map whose sources are missing, and no code pointing at a missing map', () => {
    for (const file of packed) {
      if (file.endsWith('.map')) {
        const map = JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as {
          sources: string[];
          sourcesContent?: (string | null)[];
          sourceRoot?: string;
        };
        map.sources.forEach((source, i) => {
          if (typeof map.sourcesContent?.[i] === 'string') return;
          const target = posix.normalize(
            posix.join(posix.dirname(file), map.sourceRoot ?? '', source),
          );
          expect(packed.has(target), `${file} → ${source}`).toBe(true);
        });
      }
      if (/\.(c|m)?js$/.test(file)) {
        const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(ROOT, file), 'utf8'));
        if (url?.[1] !== undefined && !url[1].startsWith('data:')) {
          const target = posix.normalize(posix.join(posix.dirname(file), url[1]));
          expect(packed.has(target), `${file} → ${url[1]}`).toBe(true);
        }
      }
    }
  });

  it('packs every file the CLI bundle imports', () => {
    for (const file of packed) {
      if (!file.startsWith('dist/cli/') || !file.endsWith('.js')) continue;
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
        const target = posix.normalize(posix.join(posix.dirname(file), spec ?? ''));
        expect(packed.has(target), `${file} → ${spec}`).toBe(true);
      }
    }
  });
});

describe('the CLI installed from the tarball', () => {
  let installed: string;

  beforeAll(() => {
    const modules = join(work, 'install', 'node_modules');
    installed = join(modules, PACKAGE.name);
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
    // The declared dependencies and theirs, linked as npm would have installed them.
    const pending = Object.keys(PACKAGE.dependencies);
    const linked = new Set<string>();
    for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
      if (linked.has(name)) continue;
      const source = join(ROOT, 'node_modules', name);
      if (!existsSync(source)) continue; // an optional dependency not installed here
      linked.add(name);
      mkdirSync(dirname(join(modules, name)), { recursive: true });
      symlinkSync(source, join(modules, name), 'dir');
      const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
      };
      pending.push(...Object.keys(manifest.dependencies ?? {}));
    }
  });

  const rye = (args: string[], env: NodeJS.ProcessEnv) =>
    spawnSync(process.execPath, [join(installed, 'bin', 'rye.js'), ...args], {
      env,
      encoding: 'utf8',
    });

  it('runs --version, verify-file and execute from its own files, system space included', () => {
    const { RYE_SYSTEM_SPACE: _system, ...baseEnv } = process.env;
    const project = join(work, 'project');
    const user = join(work, 'user');
    const env = { ...baseEnv, RYE_USER_SPACE: user };
    expect(rye(['--version'], env).stdout).toBe(
      `${JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version}\n`,
    );

    const { signer, publicKeyPem } = makeSigner();
    const trustFile = join(user, '.ai', 'trusted_keys', `${signer.fingerprint}.toml`);
    mkdirSync(dirname(trustFile), { recursive: true });
    writeFileSync(
      trustFile,
      formatTrustToml({
        fingerprint: signer.fingerprint,
        owner: 't',
        attestation: '',
        publicKeyPem,
      }),
    );
    const tool = join(project, '.ai', 'tools', 'pkg', 'hello.py');
    mkdirSync(dirname(tool), { recursive: true });
    writeFileSync(
      tool,
      signText(PYTHON_TOOL('pkg').replace('print("hi")', 'print(\'{"hello": 1}\')'), {
        itemType: 'tool',
        extension: '.py',
        signer,
      }).text,
    );

    const verified = rye(
      ['verify-file', tool, '--item-type', 'tool', '--trust', trustFile, '--json'],
      env,
    );
    expect(verified.status, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ verdict: 'ok' });

    const ran = rye(['execute', 'tool', 'pkg/hello', '--project', project, '--json'], env);
    expect(ran.status, ran.stdout + ran.stderr).toBe(0);
    const doc = JSON.parse(ran.stdout) as { data: unknown; chain: { space: string }[] };
    expect(doc.data).toEqual({ hello: 1 });
    // The runtime and primitive came from the installed package's own system space.
    expect(doc.chain.map((e) => e.space)).toEqual(['project', 'system', 'system']);
    expect(readdirSync(join(installed, 'dist', 'cli')).length).toBeGreaterThan(1);
  });

  it('runs its code bodies with the code caches packed beside them, wherever it is installed', () => {
    const script = `const m = await import(${JSON.stringify(pathToFileURL(join(installed, 'dist', 'cli', 'fast', 'execute.js')).href)});
console.log(m.__ryeCodeCache.state);`;
    const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(res.stdout.trim(), res.stderr).toBe('used');
  });
});

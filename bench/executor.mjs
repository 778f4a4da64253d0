// Issue 3 benchmarks: dependency verification of the seed's 30-file tree (cold
// and warm), in-process execute overhead over a raw spawn, and a whole
// `rye execute` process.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  formatTrustToml,
  generateKeyPair,
  fingerprintOf,
  parsePrivateKey,
  parsePublicKey,
  resolveSpaces,
  signText,
  trustSetOf,
  loadSpaceTrust,
} from '../dist/src/index.js';
import { VerifiedFileCache, execute } from '../dist/src/executor/index.js';
import { verifyDependencies } from '../dist/src/executor/deps/verify-deps.js';
import { materializeSnapshot, snapshotLayout } from '../dist/src/executor/snapshot/snapshot.js';
import { median, report } from './util.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** The seed's threads layout: 30 signed files in 5 folders, one entry point. */
function threadsTree(dir, signer) {
  const files = { '__init__.py': '', 'thread_config.yaml': 'max_turns: 30\n' };
  for (const sub of ['adapters', 'events', 'loaders', 'persistence']) {
    files[`${sub}/__init__.py`] = '';
    for (let i = 0; i < 6; i += 1)
      files[`${sub}/module_${i}.py`] = `def f${i}(x):\n    return x * ${i}\n`.repeat(8);
  }
  files['safety_harness.py'] = 'def check():\n    return True\n';
  files['thread_directive.py'] =
    '__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_script_runtime"\n__category__ = "rye/agent/threads"\n__tool_description__ = "entry"\nprint("{}")\n';
  for (const [rel, text] of Object.entries(files)) {
    const ext = rel.slice(rel.lastIndexOf('.'));
    write(join(dir, rel), signText(text, { itemType: 'tool', extension: ext, signer }).text);
  }
  return Object.keys(files).length;
}

function time(fn) {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

async function timeAsync(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function run() {
  const work = mkdtempSync(join(tmpdir(), 'rye-bench-exec-'));
  try {
    const pair = generateKeyPair();
    const signer = {
      privateKey: parsePrivateKey(pair.privateKeyPem),
      fingerprint: fingerprintOf(pair.publicKeyPem),
    };
    const info = parsePublicKey(pair.publicKeyPem);
    const trust = trustSetOf([{ ...info, owner: 'bench', attestation: '', source: null }]);
    const project = join(work, 'project');
    const user = join(work, 'user');
    const system = join(work, 'system');
    cpSync(join(root, 'dist', 'system'), system, { recursive: true });
    const threads = join(project, '.ai/tools/rye/agent/threads');
    const count = threadsTree(threads, signer);
    const config = {
      enabled: true,
      scope: 'anchor',
      recursive: true,
      extensions: ['.py', '.yaml', '.yml', '.json'],
      excludeDirs: ['__pycache__', '.venv', 'node_modules', '.git'],
    };

    const cold = [];
    for (let i = 0; i < 40; i += 1) {
      const cache = new VerifiedFileCache();
      cold.push(await timeAsync(() => verifyDependencies({ base: threads, config, trust, cache })));
    }
    const cache = new VerifiedFileCache();
    await verifyDependencies({ base: threads, config, trust, cache });
    const warm = [];
    for (let i = 0; i < 200; i += 1)
      warm.push(await timeAsync(() => verifyDependencies({ base: threads, config, trust, cache })));
    report('verify_deps.cold_ms', median(cold.slice(5)), 'ms', { files: count, goal: '< 4 ms' });
    report('verify_deps.warm_ms', median(warm.slice(20)), 'ms', { files: count, goal: '< 1 ms' });

    // A cold snapshot of the same tree (written once per tree, then reused), and a warm lookup.
    const report30 = await verifyDependencies({ base: threads, config, trust, cache });
    const sources = report30.files.map((f) => ({
      area: 'scope',
      rel: f.relativePath,
      extension: f.extension,
      raw: f.raw,
      rawSha256: f.rawSha256,
    }));
    const snapCold = [];
    const snapWarm = [];
    for (let i = 0; i < 20; i += 1) {
      const layout = snapshotLayout(join(work, `cache-${i}`), sources);
      snapCold.push(time(() => materializeSnapshot(layout, sources)));
      snapWarm.push(
        time(() => materializeSnapshot(snapshotLayout(join(work, `cache-${i}`), sources), sources)),
      );
    }
    report('execute.snapshot_cold_ms', median(snapCold.slice(2)), 'ms', {
      files: sources.length,
      warm_lookup_ms: Number(median(snapWarm.slice(2)).toFixed(3)),
    });

    // In-process execute of a trivial single-file tool vs. a raw spawn of the same command.
    const toolPath = join(project, '.ai/tools/bench/noop.py');
    write(
      toolPath,
      signText(
        '__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_script_runtime"\n__category__ = "bench"\n__tool_description__ = "noop"\nprint("{}")\n',
        { itemType: 'tool', extension: '.py', signer },
      ).text,
    );
    write(
      join(user, '.ai/trusted_keys', `${signer.fingerprint}.toml`),
      formatTrustToml({
        fingerprint: signer.fingerprint,
        owner: 'bench',
        attestation: '',
        publicKeyPem: pair.publicKeyPem,
      }),
    );
    // The real interpreter, not a version-manager shim: its start-up noise would drown the overhead.
    const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {
      encoding: 'utf8',
    }).stdout.trim();
    const env = {
      ...process.env,
      RYE_USER_SPACE: user,
      RYE_SYSTEM_SPACE: system,
      RYE_PYTHON: python,
    };
    const spaces = resolveSpaces({ project, env });
    const allTrust = (await loadSpaceTrust(spaces)).trust;
    const execCache = new VerifiedFileCache();
    // The same command and environment the runtime builds (no bytecode cache for tool code).
    const rawEnv = {
      ...env,
      PYTHONUNBUFFERED: '1',
      PYTHONPYCACHEPREFIX: '',
      PYTHONDONTWRITEBYTECODE: '1',
    };
    const inProcess = [];
    const raw = [];
    for (let i = 0; i < 40; i += 1) {
      inProcess.push(
        await timeAsync(async () => {
          const result = await execute({
            spaces,
            toolId: 'bench/noop',
            env,
            trust: allTrust,
            cache: execCache,
          });
          if (result.status !== 'success') throw new Error(JSON.stringify(result));
        }),
      );
      raw.push(
        time(() =>
          spawnSync(python, [toolPath, '--params', '{}', '--project-path', project], {
            env: rawEnv,
          }),
        ),
      );
    }
    const overhead = median(inProcess.slice(3)) - median(raw.slice(3));
    report('execute.overhead_ms', overhead, 'ms', {
      execute_ms: Number(median(inProcess.slice(3)).toFixed(2)),
      raw_spawn_ms: Number(median(raw.slice(3)).toFixed(2)),
      goal: '< 10 ms',
    });

    const bin = join(root, 'bin', 'rye.js');
    const cli = [];
    for (let i = 0; i < 9; i += 1) {
      cli.push(
        time(() => {
          const res = spawnSync(
            process.execPath,
            [bin, 'execute', 'tool', 'bench/noop', '--project', project, '--json'],
            { env, encoding: 'utf8' },
          );
          if (res.status !== 0) throw new Error(res.stdout + res.stderr);
        }),
      );
    }
    report('cli.execute_ms', median(cli.slice(1)), 'ms', { runs: cli.length - 1 });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

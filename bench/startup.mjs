// Issue 12 benchmarks: what a whole `rye` process costs, against the floor of the
// tools it stands beside, measured in the same run so the ratios hold on any machine:
// `rye --version` and `rye verify-file` against `node -e 0`, `rye execute` of a
// trivial Python tool against `node -e 0` + `python3 -c 0`, and `rye bundle verify`
// of 10,000 files against `sha256sum -c` over the same files.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  createBundle,
  fingerprintOf,
  formatTrustToml,
  generateKeyPair,
  parsePrivateKey,
  loadExplicitTrust,
  resolveSpaces,
  signText,
  verifyFile,
} from '../dist/src/index.js';
import { median, report, throughputAsync } from './util.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'rye.js');
const BUNDLE_FILES = 10_000;
const VERIFY_FILES = 2_000;
const BUNDLE_FILE_SIZE = 10 * 1024;

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Milliseconds of one whole process; throws when it does not exit 0. */
function timeProcess([command, ...args], options) {
  const start = performance.now();
  const res = spawnSync(command, args, { encoding: 'utf8', ...options });
  const ms = performance.now() - start;
  if (res.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed: ${res.stdout}${res.stderr}`);
  return ms;
}

/**
 * Median milliseconds of each command. Runs are interleaved, round by round, so a
 * change in machine load weighs on every command alike; the first round warms the
 * page cache and is dropped.
 */
function race(commands, rounds) {
  const times = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let round = 0; round <= rounds; round += 1) {
    for (const [name, { argv, options }] of Object.entries(commands)) {
      const ms = timeProcess(argv, options);
      if (round > 0) times[name].push(ms);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

const round1 = (n) => Number(n.toFixed(1));

export async function run() {
  const work = mkdtempSync(join(tmpdir(), 'rye-bench-startup-'));
  try {
    const pair = generateKeyPair();
    const signer = {
      privateKey: parsePrivateKey(pair.privateKeyPem),
      fingerprint: fingerprintOf(pair.publicKeyPem),
    };
    const project = join(work, 'project');
    const user = join(work, 'user');
    const trustFile = join(user, '.ai', 'trusted_keys', `${signer.fingerprint}.toml`);
    write(
      trustFile,
      formatTrustToml({
        fingerprint: signer.fingerprint,
        owner: 'bench',
        attestation: '',
        publicKeyPem: pair.publicKeyPem,
      }),
    );
    const toolPath = join(project, '.ai', 'tools', 'bench', 'noop.py');
    write(
      toolPath,
      signText(
        '__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_script_runtime"\n__category__ = "bench"\n__tool_description__ = "noop"\nprint("{}")\n',
        { itemType: 'tool', extension: '.py', signer },
      ).text,
    );
    // The real interpreter, not a version-manager shim, for rye and for the floor alike.
    const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {
      encoding: 'utf8',
    }).stdout.trim();
    // The system space is the package's own (dist/system), found from the running code.
    const env = { ...process.env, RYE_USER_SPACE: user, RYE_PYTHON: python };
    delete env.RYE_SYSTEM_SPACE;
    const node = (args) => ({ argv: [process.execPath, ...args], options: { env } });
    const rye = (args) => node([bin, ...args]);

    const small = race(
      {
        node: node(['-e', '0']),
        python: { argv: [python, '-c', '0'], options: { env } },
        version: rye(['--version']),
        help: rye(['--help']),
        verifyFile: rye(['verify-file', toolPath, '--item-type', 'tool', '--trust', trustFile]),
        execute: rye(['execute', 'tool', 'bench/noop', '--project', project, '--json']),
      },
      20,
    );
    report('startup.node_e0_ms', small.node, 'ms');
    report('startup.python_c0_ms', small.python, 'ms');
    report('startup.version_ms', small.version, 'ms');
    report('startup.help_ms', small.help, 'ms');
    report('startup.verify_file_ms', small.verifyFile, 'ms');
    report('startup.execute_ms', small.execute, 'ms');
    report('cli.version_ratio', small.version / small.node, 'ratio', {
      rye_ms: round1(small.version),
      node_ms: round1(small.node),
      goal: '<= 1.4',
    });
    report('cli.verify_file_ratio', small.verifyFile / small.node, 'ratio', {
      rye_ms: round1(small.verifyFile),
      node_ms: round1(small.node),
      goal: '<= 1.4',
    });
    const floor = small.node + small.python;
    report('cli.execute_excess_ms', small.execute - floor, 'ms', {
      rye_ms: round1(small.execute),
      node_plus_python_ms: round1(floor),
      goal: '<= 25',
    });

    // verifyFile over many small items at once, as `rye verify tool '*'` does (in process).
    const items = [];
    for (let i = 0; i < VERIFY_FILES; i += 1) {
      const path = join(project, '.ai', 'tools', 'many', `t${i}.py`);
      write(
        path,
        signText(`__version__ = "1.0.${i}"\n${'x = 1\n'.repeat(40)}`, {
          itemType: 'tool',
          extension: '.py',
          signer,
        }).text,
      );
      items.push(path);
    }
    const trust = await loadExplicitTrust([trustFile]);
    const perSecond = await throughputAsync(items, async (batch) => {
      const results = await Promise.all(batch.map((p) => verifyFile(p, 'tool', trust)));
      if (results.some((r) => !r.ok)) throw new Error('bench item failed to verify');
    });
    report('verify_file.items_per_s', perSecond, 'items/s', { files: VERIFY_FILES });

    // 10,000 files of 10 KiB, a signed manifest over them, and the same list for sha256sum.
    const chunk = randomBytes(BUNDLE_FILE_SIZE * 4);
    for (let i = 0; i < BUNDLE_FILES; i += 1) {
      const dir = join(project, 'big-app', `d${i % 100}`);
      if (i < 100) mkdirSync(dir, { recursive: true });
      const offset = (i * 37) % (BUNDLE_FILE_SIZE * 3);
      writeFileSync(join(dir, `f${i}.bin`), chunk.subarray(offset, offset + BUNDLE_FILE_SIZE));
    }
    mkdirSync(join(project, '.ai', 'tools', 'apps', 'big'), { recursive: true });
    const created = await createBundle({
      spaces: resolveSpaces({ project, env }),
      bundleId: 'apps/big',
      version: '1.0.0',
      includes: ['big-app'],
      signer,
    });
    const sums = join(work, 'SHA256SUMS');
    writeFileSync(
      sums,
      [...created.manifest.files].map(([path, e]) => `${e.sha256}  ${path}\n`).join(''),
    );
    const big = race(
      {
        sha256sum: { argv: ['sha256sum', '-c', '--quiet', sums], options: { cwd: project } },
        verify: rye(['bundle', 'verify', 'apps/big', '--project', project, '--json']),
      },
      5,
    );
    report('startup.sha256sum_c_ms', big.sha256sum, 'ms', { files: created.fileCount });
    report('startup.bundle_verify_ms', big.verify, 'ms', { files: created.fileCount });
    report('cli.bundle_verify_ratio', big.verify / big.sha256sum, 'ratio', {
      rye_ms: Math.round(big.verify),
      sha256sum_ms: Math.round(big.sha256sum),
      files: created.fileCount,
      goal: '<= 1.0',
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// `node bench/startup.mjs` runs this suite alone.
if (process.argv[1] === fileURLToPath(import.meta.url)) await run();

// Issue 4 benchmarks: the lockfile fast path (walk + SHA-256 per file, compared
// with the pinned hashes) against full dependency verification, for the seed's
// 30-file tree and a 1,000-file tree.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  fingerprintOf,
  generateKeyPair,
  parsePrivateKey,
  parsePublicKey,
  signText,
  trustSetOf,
} from '../dist/src/index.js';
import { VerifiedFileCache } from '../dist/src/executor/index.js';
import { hashDependencies, verifyDependencies } from '../dist/src/executor/deps/verify-deps.js';
import { compareDeps } from '../dist/src/lockfile/index.js';
import { median, report } from './util.mjs';

const CONFIG = {
  enabled: true,
  scope: 'anchor',
  recursive: true,
  extensions: ['.py', '.yaml', '.yml', '.json'],
  excludeDirs: ['__pycache__', '.venv', 'node_modules', '.git'],
};

function tree(dir, count, signer) {
  for (let i = 0; i < count; i += 1) {
    const rel = i < 2 ? (i === 0 ? '__init__.py' : 'config.yaml') : `pkg_${i % 10}/module_${i}.py`;
    const path = join(dir, rel);
    mkdirSync(dirname(path), { recursive: true });
    const body = rel.endsWith('.yaml')
      ? 'max_turns: 30\n'
      : `def f(x):\n    return x + ${i}\n`.repeat(8);
    writeFileSync(
      path,
      signText(body, { itemType: 'tool', extension: rel.slice(rel.lastIndexOf('.')), signer }).text,
    );
  }
}

async function timeAsync(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function run() {
  const work = mkdtempSync(join(tmpdir(), 'rye-bench-lock-'));
  try {
    const pair = generateKeyPair();
    const signer = {
      privateKey: parsePrivateKey(pair.privateKeyPem),
      fingerprint: fingerprintOf(pair.publicKeyPem),
    };
    const trust = trustSetOf([
      { ...parsePublicKey(pair.publicKeyPem), owner: 'bench', attestation: '', source: null },
    ]);
    for (const [count, suffix, rounds] of [
      [30, '', 200],
      [1000, '_1000', 8],
    ]) {
      const dir = join(work, `tree-${count}`);
      tree(dir, count, signer);
      const first = await verifyDependencies({
        base: dir,
        config: CONFIG,
        trust,
        cache: new VerifiedFileCache(),
      });
      const pinned = {
        anchorPath: '.',
        scope: 'anchor',
        files: Object.fromEntries(
          first.files.map((f) => [f.relativePath, `sha256:${f.rawSha256}`]),
        ),
      };
      const cold = [];
      const fast = [];
      for (let i = 0; i < rounds; i += 1) {
        cold.push(
          await timeAsync(() =>
            verifyDependencies({
              base: dir,
              config: CONFIG,
              trust,
              cache: new VerifiedFileCache(),
            }),
          ),
        );
        fast.push(
          await timeAsync(() => {
            const hashed = hashDependencies({ base: dir, config: CONFIG });
            const mismatches = compareDeps(
              pinned,
              new Map(hashed.files.map((f) => [f.relativePath, f.rawSha256])),
            );
            if (mismatches.length > 0) throw new Error('bench tree changed');
          }),
        );
      }
      const coldMs = median(cold.slice(1));
      const fastMs = median(fast.slice(1));
      // verify_deps.cold_ms for the 30-file tree comes from the executor suite.
      if (suffix !== '')
        report(`verify_deps.cold${suffix}_ms`, coldMs, 'ms', { files: first.files.length });
      report(`lockfile.fast_path${suffix}_ms`, fastMs, 'ms', {
        files: first.files.length,
        full_verification_ms: Number(coldMs.toFixed(2)),
        speedup_vs_cold: Number((coldMs / fastMs).toFixed(1)),
        goal: count === 30 ? '< 1 ms' : '>= 5x faster than full verification',
      });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

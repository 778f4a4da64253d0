// Issue 5 benchmarks: create and verify a bundle of 10,000 files / 100 MB, with
// `sha256sum -c` over the same tree in the same run as the reference.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  createBundle,
  fingerprintOf,
  generateKeyPair,
  parsePrivateKey,
  parsePublicKey,
  resolveSpaces,
  trustSetOf,
  verifyBundle,
} from '../dist/src/index.js';
import { report } from './util.mjs';

const FILES = 10_000;
const SIZE = 10 * 1024; // 10,000 × 10 KiB ≈ 100 MB

export async function run() {
  const work = mkdtempSync(join(tmpdir(), 'rye-bench-bundle-'));
  try {
    const project = join(work, 'project');
    const chunk = randomBytes(SIZE * 4);
    for (let i = 0; i < FILES; i += 1) {
      const dir = join(project, 'big-app', `d${i % 100}`);
      if (i < 100) mkdirSync(dir, { recursive: true });
      const offset = (i * 37) % (SIZE * 3);
      writeFileSync(join(dir, `f${i}.bin`), chunk.subarray(offset, offset + SIZE));
    }
    mkdirSync(join(project, '.ai/tools/apps/big'), { recursive: true });
    const pair = generateKeyPair();
    const signer = {
      privateKey: parsePrivateKey(pair.privateKeyPem),
      fingerprint: fingerprintOf(pair.publicKeyPem),
    };
    const trust = trustSetOf([
      { ...parsePublicKey(pair.publicKeyPem), owner: 'bench', attestation: '', source: null },
    ]);
    const spaces = resolveSpaces({
      project,
      env: { ...process.env, RYE_USER_SPACE: join(work, 'user') },
    });
    const mb = (FILES * SIZE) / 1e6;

    let start = performance.now();
    const created = await createBundle({
      spaces,
      bundleId: 'apps/big',
      version: '1.0.0',
      includes: ['big-app'],
      signer,
    });
    const createMs = performance.now() - start;
    report('bundle.create_files_per_s', (created.fileCount / createMs) * 1000, 'files/s', {
      files: created.fileCount,
      mb: Number(mb.toFixed(1)),
      ms: Math.round(createMs),
    });

    // sha256sum -c over the same files, from a list in its own format.
    const sums =
      [...created.manifest.files].map(([path, entry]) => `${entry.sha256}  ${path}`).join('\n') +
      '\n';
    writeFileSync(join(work, 'SHA256SUMS'), sums);
    start = performance.now();
    const reference = spawnSync('sha256sum', ['-c', '--quiet', join(work, 'SHA256SUMS')], {
      cwd: project,
    });
    const referenceMs = performance.now() - start;
    if (reference.status !== 0) throw new Error(`sha256sum failed: ${reference.stderr}`);

    start = performance.now();
    const verified = await verifyBundle({ spaces, bundleId: 'apps/big', trust });
    const verifyMs = performance.now() - start;
    if (!verified.ok) throw new Error('bench bundle failed to verify');
    report('bundle.verify_files_per_s', (created.fileCount / verifyMs) * 1000, 'files/s', {
      files: created.fileCount,
      ms: Math.round(verifyMs),
    });
    report('bundle.verify_mb_per_s', mb / (verifyMs / 1000), 'MB/s', { mb: Number(mb.toFixed(1)) });
    report('bundle.verify_vs_sha256sum', verifyMs / referenceMs, 'ratio', {
      verify_ms: Math.round(verifyMs),
      sha256sum_ms: Math.round(referenceMs),
      note: 'verify also checks the manifest signature and looks for unlisted files',
      goal: '<= 1.0',
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

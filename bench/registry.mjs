// Issue 6 benchmarks: pulls of a small item from a real `rye registry serve`
// process under 64 concurrent connections (autocannon, in this process), on
// SQLite and on PostgreSQL, and the throughput of a bundle push.
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import {
  createBundle,
  ensureSelfTrusted,
  fingerprintOf,
  generateKeyPair,
  parsePrivateKey,
  resolveSpaces,
  signText,
} from '../dist/src/index.js';
import {
  latestOf,
  runRegistryAction,
  signIndex,
  signKeyProof,
  verifyIndex,
} from '../dist/src/registry/index.js';
import { startRegistry } from '../scripts/registry-process.mjs';
import { report } from './util.mjs';
import { performance } from 'node:perf_hooks';

const PG_BASE = process.env.RYE_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const CONNECTIONS = 64;
const DURATION_S = 10;

const TOOL = `"""A small item for the pull benchmark."""
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "bench"
__tool_description__ = "A small item for the pull benchmark"

if __name__ == "__main__":
    print("hello")
`;

export async function run() {
  indexVerifyBench();
  await pullBench('sqlite');
  await bundlePushBench();
  await healthUnderAbuseBench();
  const url = `${PG_BASE}?schema=reg_bench_${randomBytes(4).toString('hex')}`;
  if (await postgresReachable()) {
    try {
      await pullBench('postgres', url);
    } finally {
      await dropSchema(url);
    }
  } else {
    report('registry.pull_rps', 0, 'req/s', {
      store: 'postgres',
      skipped: 'no PostgreSQL on 127.0.0.1:5432',
    });
  }
}

async function pullBench(store, databaseUrl) {
  const data = mkdtempSync(join(tmpdir(), 'rye-bench-registry-'));
  const server = await startRegistry({ data, databaseUrl });
  try {
    const author = await newAuthor(server.url, 'bench');
    const signed = signText(TOOL, { itemType: 'tool', extension: '.py', signer: author.signer });
    await call(server.url, 'POST', '/v1/items', author.token, {
      item_type: 'tool',
      namespace: 'bench',
      item_id: 'bench/pull_me',
      version: '1.0.0',
      extension: '.py',
      content: signed.text,
    });
    const target = `${server.url}/v1/items/tool/bench/bench/pull_me?version=1.0.0`;
    const result = await autocannon({
      url: target,
      connections: CONNECTIONS,
      duration: DURATION_S,
    });
    if (result.errors > 0 || result.non2xx > 0) {
      throw new Error(`pull bench: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
    }
    const extra = {
      store,
      connections: CONNECTIONS,
      seconds: DURATION_S,
      bytes: signed.text.length,
    };
    report('registry.pull_rps', result.requests.average, 'req/s', {
      ...extra,
      goal: store === 'sqlite' ? '>= 1500' : undefined,
    });
    report('registry.pull_p99_ms', result.latency.p99, 'ms', {
      ...extra,
      goal: store === 'sqlite' ? '< 25' : undefined,
    });
  } finally {
    await server.stop();
    rmSync(data, { recursive: true, force: true });
  }
}

const INDEX_VERSIONS = 20;
const INDEX_ROUNDS = 2000;

/**
 * Client-side check of one signed package index of 20 versions (signature,
 * parse, package, expiry, seq): what every pull and `versions` adds.
 */
function indexVerifyBench() {
  const pair = generateKeyPair();
  const signer = {
    privateKey: parsePrivateKey(pair.privateKeyPem),
    fingerprint: fingerprintOf(pair.publicKeyPem),
  };
  const versions = Array.from({ length: INDEX_VERSIONS }, (_, i) => ({
    version: `1.${i}.0`,
    content_hash: randomBytes(32).toString('hex'),
    published_at: '2026-01-01T00:00:00Z',
    yanked: i % 5 === 4,
  }));
  const now = new Date();
  const document = signIndex(signer, {
    rye_index: 1,
    registry_fingerprint: signer.fingerprint,
    kind: 'item',
    item_type: 'tool',
    namespace: 'bench',
    item_id: 'bench/pull_me',
    seq: 42,
    issued_at: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    expires_at: new Date(now.getTime() + 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    latest: latestOf(versions),
    versions,
  });
  const check = {
    asked: { kind: 'item', itemType: 'tool', namespace: 'bench', itemId: 'bench/pull_me' },
    pinned: { fingerprint: signer.fingerprint, publicKeyPem: pair.publicKeyPem },
    document,
    now,
    seenSeq: 41,
    registry: 'http://127.0.0.1:8080',
    statePath: '/dev/null',
  };
  for (let i = 0; i < 100; i += 1) verifyIndex(check);
  const start = performance.now();
  for (let i = 0; i < INDEX_ROUNDS; i += 1) verifyIndex(check);
  const ms = (performance.now() - start) / INDEX_ROUNDS;
  report('registry.index_verify_ms', Number(ms.toFixed(4)), 'ms', {
    versions: INDEX_VERSIONS,
    bytes: document.index.length,
    rounds: INDEX_ROUNDS,
  });
}

const BUNDLE_FILES = 200;
const BUNDLE_FILE_BYTES = 256 * 1024; // 200 × 256 KiB ≈ 52 MB

/** Push a freshly created ~52 MB bundle through the client library (upload, publish, check). */
async function bundlePushBench() {
  const work = mkdtempSync(join(tmpdir(), 'rye-bench-registry-push-'));
  const server = await startRegistry({ data: join(work, 'data') });
  try {
    const author = await newAuthor(server.url, 'pusher');
    const project = join(work, 'project');
    const chunk = randomBytes(BUNDLE_FILE_BYTES * 2);
    for (let i = 0; i < BUNDLE_FILES; i += 1) {
      const dir = join(project, 'big-app', `d${i % 10}`);
      mkdirSync(dir, { recursive: true });
      const at = (i * 4099) % BUNDLE_FILE_BYTES;
      writeFileSync(join(dir, `f${i}.bin`), chunk.subarray(at, at + BUNDLE_FILE_BYTES));
    }
    mkdirSync(join(project, '.ai/tools/apps/big'), { recursive: true });
    const env = { ...process.env, RYE_USER_SPACE: join(work, 'user') };
    const spaces = resolveSpaces({ project, env });
    await ensureSelfTrusted(spaces, {
      fingerprint: author.signer.fingerprint,
      publicKeyPem: author.pair.publicKeyPem,
    });
    await createBundle({
      spaces,
      bundleId: 'apps/big',
      version: '1.0.0',
      includes: ['big-app'],
      signer: author.signer,
    });
    const mb = (BUNDLE_FILES * BUNDLE_FILE_BYTES) / 1e6;
    const start = performance.now();
    await runRegistryAction(
      spaces,
      { action: 'push_bundle', bundle_id: 'apps/big' },
      { env: { ...env, RYE_REGISTRY_URL: server.url, RYE_REGISTRY_TOKEN: author.token } },
    );
    const ms = performance.now() - start;
    report('registry.bundle_push_mb_per_s', mb / (ms / 1000), 'MB/s', {
      files: BUNDLE_FILES,
      mb: Number(mb.toFixed(1)),
      ms: Math.round(ms),
      store: 'sqlite',
    });
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Sign up, register a fresh author key; returns the token and signer. */
export async function newAuthor(url, username) {
  const session = await call(url, 'POST', '/v1/accounts', null, {
    username,
    password: 'bench-password-1',
  });
  const pair = generateKeyPair();
  const signer = {
    privateKey: parsePrivateKey(pair.privateKeyPem),
    fingerprint: fingerprintOf(pair.publicKeyPem),
  };
  // Proof of possession (issue 11): sign the registry's challenge with the key.
  const asked = await call(url, 'POST', '/v1/keys/challenge', session.token);
  const signature = signKeyProof(signer.privateKey, {
    registryFingerprint: asked.registry_fingerprint,
    username,
    keyFingerprint: signer.fingerprint,
    challenge: asked.challenge,
  });
  await call(url, 'POST', '/v1/keys', session.token, {
    public_key: pair.publicKeyPem,
    challenge: asked.challenge,
    signature,
  });
  return { token: session.token, signer, pair };
}

async function call(url, method, path, token, body) {
  const headers = { 'content-type': 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url + path, { method, headers, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

async function postgresReachable() {
  const client = new pg.Client({ connectionString: PG_BASE });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function dropSchema(url) {
  const schema = new URL(url).searchParams.get('schema');
  const client = new pg.Client({ connectionString: PG_BASE });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

const ABUSE_ROUNDS = 5;

/**
 * Issue 11: /health latency while one account pushes a 1.4 MB hostile item
 * (signed by its own key), a 12 MiB nested manifest and 8 × 60 MiB blobs over
 * its 50 MiB quota, ABUSE_ROUNDS times; every abusive request is refused.
 */
async function healthUnderAbuseBench() {
  const work = mkdtempSync(join(tmpdir(), 'rye-bench-registry-abuse-'));
  const server = await startRegistry({
    data: join(work, 'data'),
    args: ['--max-account-bytes', String(50 * 1024 * 1024)],
  });
  try {
    const author = await newAuthor(server.url, 'mallory');
    const text = `"""Hostile."""\n__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_script_runtime"\n__category__ = "bench"\nCONFIG_SCHEMA = ${'['.repeat(700_000)}${']'.repeat(700_000)}\n`;
    const item = JSON.stringify({
      item_type: 'tool',
      namespace: 'mallory',
      item_id: 'bench/hostile',
      version: '1.0.0',
      extension: '.py',
      content: signText(text, { itemType: 'tool', extension: '.py', signer: author.signer }).text,
    });
    const manifest = JSON.stringify({
      namespace: 'mallory',
      bundle_id: 'apps/x',
      manifest: `bundle:\n  id: apps/x\nfiles: ${'['.repeat(12 * 1024 * 1024)}`,
    });
    const latencies = [];
    const refused = new Map();
    for (let round = 0; round < ABUSE_ROUNDS; round += 1) {
      const abuse = Promise.all([
        fetch(`${server.url}/v1/items`, {
          method: 'POST',
          headers: { authorization: `Bearer ${author.token}`, 'content-type': 'application/json' },
          body: item,
        }).then(async (answer) => (await answer.json()).error?.code ?? answer.status),
        declaredUpload(
          server.url,
          author.token,
          'POST',
          '/v1/bundles',
          manifest.length,
          manifest.slice(0, 65536),
        ),
        ...Array.from({ length: 8 }, (_, i) => {
          const first = Buffer.alloc(65536, i);
          const address = createHash('sha256').update(first).digest('hex');
          return declaredUpload(
            server.url,
            author.token,
            'PUT',
            `/v1/blobs/${address}`,
            60 * 1024 * 1024,
            first,
          );
        }),
      ]);
      let done = false;
      void abuse.finally(() => (done = true));
      while (!done) {
        const start = performance.now();
        const answer = await fetch(`${server.url}/health`);
        await answer.arrayBuffer();
        latencies.push(performance.now() - start);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      for (const code of await abuse) refused.set(code, (refused.get(code) ?? 0) + 1);
    }
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))];
    report('registry.health_under_abuse_p99_ms', Number(p99.toFixed(2)), 'ms', {
      samples: latencies.length,
      max_ms: Number(latencies[latencies.length - 1].toFixed(2)),
      goal_ms: 50,
      refused: Object.fromEntries(refused),
      store: 'sqlite',
    });
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Declare `declared` bytes, send only `first`; resolves with the refusal's error code. */
function declaredUpload(url, token, method, path, declared, first) {
  return new Promise((resolve, reject) => {
    const req = request(url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-length': String(declared) },
    });
    let settled = false;
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => {
        settled = true;
        req.destroy();
        resolve(JSON.parse(body).error?.code ?? res.statusCode);
      });
    });
    req.on('error', (error) => {
      if (!settled) reject(error);
    });
    req.write(first);
  });
}

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBundle } from '../../../src/bundle/index.js';
import { runRegistryAction } from '../../../src/registry/index.js';
import { RYE_BIN } from '../../helpers/cli.js';
import { startRegistryProcess, type RegistryProcess } from '../../helpers/registry-server.js';
import { makeAuthor, registryCall } from './author.js';

const FILES = 120;
const FILE_BYTES = 512 * 1024; // 60 MB: long enough to kill the server mid-push

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

function blobCount(dataDir: string): number {
  const root = join(dataDir, 'blobs');
  if (!existsSync(root)) return 0;
  let count = 0;
  for (const dir of readdirSync(root)) {
    count += readdirSync(join(root, dir)).filter((name) => /^[0-9a-f]{64}$/.test(name)).length;
  }
  return count;
}

describe('registry crash safety', () => {
  it('a server killed with SIGKILL in the middle of a bundle push shows no partial version, and the next push succeeds', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'rye-crash-')), 'data');
    cleanup.push(() => rmSync(join(dataDir, '..'), { recursive: true, force: true }));
    let server: RegistryProcess = await startRegistryProcess({ dataDir });
    cleanup.push(() => server.kill());
    const author = await makeAuthor(server.url, 'crasher');
    cleanup.push(() => rmSync(author.root, { recursive: true, force: true }));
    const project = author.spaces.project;
    const bytes = randomBytes(FILE_BYTES * 2);
    for (let i = 0; i < FILES; i += 1) {
      const dir = join(project, 'big-app', `d${i % 8}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `f${i}.bin`), bytes.subarray(i * 997, i * 997 + FILE_BYTES));
    }
    mkdirSync(join(project, '.ai/tools/apps/big'), { recursive: true });
    await createBundle({
      spaces: author.spaces,
      bundleId: 'apps/big',
      version: '1.0.0',
      includes: ['big-app'],
      signer: author.signer,
    });

    // Push through the real CLI and kill the server once some files have landed.
    const push = spawn(
      process.execPath,
      [RYE_BIN, 'registry', 'push-bundle', 'apps/big', '--project', project, '--json'],
      { env: author.env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let pushOut = '';
    push.stdout.setEncoding('utf8').on('data', (d: string) => (pushOut += d));
    const pushExit = new Promise<number | null>((resolve) => push.once('exit', resolve));
    const deadline = Date.now() + 60_000;
    while (blobCount(dataDir) < 10 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const landed = blobCount(dataDir);
    await server.kill('SIGKILL');
    const pushCode = await pushExit;
    expect(landed).toBeGreaterThanOrEqual(10);
    expect(landed).toBeLessThan(FILES); // the kill came before the upload finished
    expect(pushCode).toBe(1);
    expect((JSON.parse(pushOut) as { error: { code: string } }).error.code).toBe(
      'REGISTRY_UNREACHABLE',
    );

    // Restart on the same data: the bundle has no version at all.
    server = await startRegistryProcess({ dataDir });
    const versions = await registryCall(
      server.url,
      'GET',
      '/v1/versions?kind=bundle&namespace=crasher&item_id=apps/big',
      null,
    ).catch((error: Error) => ({ error: error.message }));
    expect(JSON.stringify(versions)).not.toContain('1.0.0');
    const pulled = await fetch(`${server.url}/v1/bundles/crasher/apps/big?version=1.0.0`);
    expect(pulled.status).toBe(404);
    expect(((await pulled.json()) as { error: { code: string } }).error.code).toBe(
      'REGISTRY_NOT_FOUND',
    );

    // The next push succeeds (reusing the blobs that did land) and verifies on pull.
    const env = { ...author.env, RYE_REGISTRY_URL: server.url };
    const pushed = await runRegistryAction(
      author.spaces,
      { action: 'push_bundle', bundle_id: 'apps/big' },
      { env },
    );
    expect(pushed.ok).toBe(true);
    const reader = await makeAuthor(server.url, 'reader');
    cleanup.push(() => rmSync(reader.root, { recursive: true, force: true }));
    const result = await runRegistryAction(
      reader.spaces,
      { action: 'pull_bundle', bundle_id: 'crasher/apps/big', version: '1.0.0' },
      { env: reader.env },
    );
    expect(result.ok).toBe(true);
    expect(readdirSync(join(reader.spaces.project, 'big-app')).length).toBe(8);
  }, 120_000);
});

import { readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex, signText } from '../../../src/integrity/index.js';
import { PYTHON_TOOL } from '../../helpers/items.js';
import { startRegistryProcess, type RegistryProcess } from '../../helpers/registry-server.js';
import { makeAuthor, registryCall, type Author } from './author.js';

const MiB = 1024 * 1024;
const ACCOUNT_BYTES = 50 * MiB;

let server: RegistryProcess;
let attacker: Author;

beforeAll(async () => {
  server = await startRegistryProcess({
    args: ['--max-account-bytes', String(ACCOUNT_BYTES)],
  });
  attacker = await makeAuthor(server.url, 'mallory');
});

afterAll(async () => {
  await server.stop();
  rmSync(attacker.root, { recursive: true, force: true });
});

interface Refusal {
  readonly status: number;
  readonly code: string;
  readonly retryAfter: string | undefined;
}

/**
 * Declare `declared` body bytes but send only `first`, then wait for the
 * answer: a refusal that arrives proves the server decided before reading
 * the rest of the body, which never left this process.
 */
function declaredUpload(
  method: string,
  path: string,
  declared: number,
  first: Buffer,
  contentType: string,
): Promise<Refusal> {
  return new Promise((resolve, reject) => {
    const req = request(server.url + path, {
      method,
      headers: {
        authorization: `Bearer ${attacker.token}`,
        'content-type': contentType,
        'content-length': String(declared),
      },
    });
    let settled = false;
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        settled = true;
        req.destroy();
        const body = JSON.parse(text) as { error: { code: string } };
        const retryAfter = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, code: body.error.code, retryAfter });
      });
    });
    req.on('error', (error) => {
      if (!settled) reject(error);
    });
    req.write(first);
  });
}

/** Poll /health until `done` settles; every answer's status. */
async function healthDuring(done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const statuses: number[] = [];
  do {
    const answer = await fetch(`${server.url}/health`);
    await answer.arrayBuffer();
    statuses.push(answer.status);
    await new Promise((resolve) => setTimeout(resolve, 5));
  } while (!finished);
  return statuses;
}

/** A Python tool whose CONFIG_SCHEMA is 1.4 MB of nested lists, signed by the attacker's own key. */
function hostileItem(): Record<string, string> {
  const text = PYTHON_TOOL('utils', `CONFIG_SCHEMA = ${'['.repeat(700_000)}${']'.repeat(700_000)}`);
  const signed = signText(text, { itemType: 'tool', extension: '.py', signer: attacker.signer });
  return {
    item_type: 'tool',
    namespace: 'mallory',
    item_id: 'utils/hostile',
    version: '1.0.0',
    extension: '.py',
    content: signed.text,
  };
}

describe('one abusive account cannot stall the registry', () => {
  it('refuses a 1.4 MB hostile item, a 12 MiB nested manifest and 8 × 60 MiB blobs, stores nothing, and /health answers throughout', async () => {
    const item = hostileItem();
    expect(Buffer.byteLength(item['content']!)).toBeGreaterThan(1_400_000);
    const itemAnswer = fetch(`${server.url}/v1/items`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${attacker.token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(item),
    }).then(async (answer) => ({
      status: answer.status,
      code: ((await answer.json()) as { error: { code: string } }).error.code,
    }));

    const manifest = `# unsigned\nbundle:\n  id: apps/x\nfiles: ${'['.repeat(12 * MiB)}`;
    const manifestBody = JSON.stringify({ namespace: 'mallory', bundle_id: 'apps/x', manifest });
    const manifestAnswer = declaredUpload(
      'POST',
      '/v1/bundles',
      Buffer.byteLength(manifestBody),
      Buffer.from(manifestBody.slice(0, 64 * 1024)),
      'application/json',
    );

    const blobAnswers = Array.from({ length: 8 }, (_, i) => {
      const first = Buffer.alloc(64 * 1024, i);
      // The address of the whole blob never matters: it is refused before it is read.
      return declaredUpload(
        'PUT',
        `/v1/blobs/${sha256Hex(first)}`,
        60 * MiB,
        first,
        'application/octet-stream',
      );
    });

    const all = Promise.all([itemAnswer, manifestAnswer, ...blobAnswers]);
    const health = await healthDuring(all);
    const [itemRefusal, manifestRefusal, ...blobRefusals] = await all;

    expect(itemRefusal).toEqual({ status: 422, code: 'PARSE_UNSAFE_CONTENT' });
    expect(manifestRefusal).toMatchObject({ status: 413, code: 'REGISTRY_BODY_TOO_LARGE' });
    for (const refusal of blobRefusals) {
      // Over the quota, or past the account's uploads in progress while others are refused.
      expect(refusal.status === 507 || refusal.status === 429).toBe(true);
      expect(['REGISTRY_QUOTA_EXCEEDED', 'REGISTRY_TOO_MANY_UPLOADS']).toContain(refusal.code);
    }
    expect(blobRefusals.filter((r) => r.code === 'REGISTRY_QUOTA_EXCEEDED').length).toBeGreaterThan(
      0,
    );

    expect(health.length).toBeGreaterThan(0);
    expect(new Set(health)).toEqual(new Set([200]));

    // Nothing was written: no blob at all, no version.
    const blobFiles = readdirSync(join(server.dataDir, 'blobs'), { recursive: true }).filter((f) =>
      /^[0-9a-f]{2}\/[0-9a-f]{64}$/.test(String(f)),
    );
    expect(blobFiles).toEqual([]);
    await expect(
      registryCall(
        server.url,
        'GET',
        '/v1/versions?kind=item&item_type=tool&namespace=mallory&item_id=utils/hostile',
        null,
      ),
    ).rejects.toThrow(/404/);
  });
});

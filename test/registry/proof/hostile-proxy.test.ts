/**
 * Attested freshness, end to end: the real `rye` CLI pulls through a hostile
 * proxy on loopback in front of a real `rye registry serve` (SQLite and
 * PostgreSQL). The proxy records genuine signed indexes and later replays or
 * rewrites them: freeze (an expired index), rollback (a lower seq), unyank (the
 * index from before a yank) and key swap (an index signed by another key).
 * Each is refused with its code, and nothing is written or run.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signText } from '../../../src/integrity/index.js';
import { parseIndex, signIndex } from '../../../src/registry/index.js';
import { rye, type CliResult } from '../../helpers/cli.js';
import { BUILT_SYSTEM } from '../../helpers/exec-project.js';
import { makeSigner } from '../../helpers/keys.js';
import {
  dropPgSchema,
  pgTestUrl,
  startRegistryProcess,
  type RegistryProcess,
} from '../../helpers/registry-server.js';
import { makeTempSpaces, type TempSpaces } from '../../helpers/temp-space.js';
import { makeAuthor, registryCall, type Author } from './author.js';

/** A proxy that forwards, remembers the last index it saw, and can answer indexes itself. */
interface HostileProxy {
  readonly url: string;
  /** The last genuine `GET /v1/index` answer body that went through. */
  lastIndex: string | null;
  /** When set, every `GET /v1/index` is answered with this body instead. */
  replay: string | null;
  close(): Promise<void>;
}

async function startProxy(upstream: string): Promise<HostileProxy> {
  const read = (req: IncomingMessage) =>
    new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks)));
    });
  const proxy: HostileProxy = { url: '', lastIndex: null, replay: null, close: async () => {} };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await read(req);
      const isIndex = (req.url ?? '').startsWith('/v1/index?');
      if (isIndex && proxy.replay !== null) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(proxy.replay);
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'authorization', 'accept']) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const answer = await fetch(upstream + (req.url ?? '/'), {
        method: req.method ?? 'GET',
        headers,
        ...(body.length === 0 ? {} : { body }),
      });
      const bytes = Buffer.from(await answer.arrayBuffer());
      if (isIndex && answer.ok) proxy.lastIndex = bytes.toString('utf8');
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/octet-stream',
      });
      res.end(bytes);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

const tool = (version: string, body: string) => `import json
__version__ = "${version}"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "utils"
__tool_description__ = "greets"
${body}
print(json.dumps({"greeting": "hello ${version}"}))
`;

async function push(server: RegistryProcess, author: Author, version: string, body = '') {
  const content = signText(tool(version, body), {
    itemType: 'tool',
    extension: '.py',
    signer: author.signer,
  }).text;
  await registryCall(server.url, 'POST', '/v1/items', author.token, {
    item_type: 'tool',
    namespace: author.username,
    item_id: 'utils/greet',
    version,
    extension: '.py',
    content,
  });
}

async function yank(server: RegistryProcess, author: Author, version: string) {
  await registryCall(server.url, 'POST', '/v1/yank', author.token, {
    kind: 'item',
    item_type: 'tool',
    namespace: author.username,
    item_id: 'utils/greet',
    version,
    yanked: true,
  });
}

type Who = Pick<TempSpaces, 'root' | 'project' | 'user' | 'env'>;

/** A consumer that lives across the tests of a describe (removed in afterAll). */
function longLivedConsumer(): Who {
  const root = mkdtempSync(join(tmpdir(), 'rye-victim-'));
  const project = join(root, 'project');
  const user = join(root, 'user');
  for (const dir of [project, user]) mkdirSync(dir);
  const env = { ...process.env, RYE_USER_SPACE: user, RYE_SYSTEM_SPACE: BUILT_SYSTEM };
  return { root, project, user, env };
}

const cli = (who: Who, url: string, args: string[]): Promise<CliResult> =>
  rye([...args, '--project', who.project, '--registry', url, '--json'], { env: who.env });

/** Every file under the project and the client's record of seen indexes. */
function state(who: Who): Record<string, string> {
  const out: Record<string, string> = {};
  const seen = join(who.user, '.ai/registry/seen_indexes.json');
  out['seen'] = existsSync(seen) ? readFileSync(seen, 'utf8') : '';
  const file = join(who.project, '.ai/tools/utils/greet.py');
  out['tool'] = existsSync(file) ? readFileSync(file, 'utf8') : '';
  return out;
}

async function expectRefused(who: Who, attempt: Promise<CliResult>, code: string) {
  const before = state(who);
  const res = await attempt;
  expect(res.code, res.stdout + res.stderr).toBe(3);
  expect(res.json()).toMatchObject({ error: { code } });
  expect(state(who)).toEqual(before);
}

describe.each(['sqlite', 'postgres'] as const)(
  'a hostile proxy before the registry (%s)',
  (backend) => {
    let server: RegistryProcess;
    let proxy: HostileProxy;
    let author: Author;
    let victim: Who;
    let marker: string;
    let pull: (version?: string) => Promise<CliResult>;
    const databaseUrl = backend === 'postgres' ? pgTestUrl() : undefined;

    beforeAll(async () => {
      server = await startRegistryProcess(databaseUrl === undefined ? {} : { databaseUrl });
      proxy = await startProxy(server.url);
      author = await makeAuthor(server.url, `ann${backend}`);
      victim = longLivedConsumer();
      marker = join(victim.root, 'bad-version-ran');
      const ref = `${author.username}/utils/greet`;
      pull = (version) =>
        cli(victim, proxy.url, [
          'registry',
          'pull',
          'tool',
          ref,
          '--force',
          ...(version === undefined ? [] : ['--version', version]),
        ]);
    });
    afterAll(async () => {
      await proxy.close();
      await server.stop();
      for (const dir of [victim.root, author.root]) rmSync(dir, { recursive: true, force: true });
      if (databaseUrl !== undefined) await dropPgSchema(databaseUrl);
    });

    it('unyank: the index from before a yank is refused once a newer one was seen', async () => {
      await push(server, author, '1.0.0');
      // 1.1.0 is bad (it writes the marker when run) and gets yanked.
      await push(server, author, '1.1.0', `open(${JSON.stringify(marker)}, "w").write("ran")`);
      const witness = makeTempSpaces({ system: BUILT_SYSTEM });
      const listed = await cli(witness, proxy.url, [
        'registry',
        'versions',
        'tool',
        `${author.username}/utils/greet`,
      ]);
      expect(listed.code, listed.stderr).toBe(0);
      const beforeYank = proxy.lastIndex as string;
      expect(parseIndex(JSON.parse(beforeYank).index).latest).toBe('1.1.0');
      await yank(server, author, '1.1.0');

      const first = await pull();
      expect(first.code, first.stdout + first.stderr).toBe(0);
      expect(first.json()).toMatchObject({ version: '1.0.0', yanked: false });

      proxy.replay = beforeYank;
      await expectRefused(victim, pull(), 'REGISTRY_INDEX_ROLLBACK');
      proxy.replay = null;
      const ran = await rye(
        ['execute', 'tool', 'utils/greet', '--project', victim.project, '--json'],
        {
          env: victim.env,
        },
      );
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      expect(ran.json()).toMatchObject({ data: { greeting: 'hello 1.0.0' } });
      expect(existsSync(marker)).toBe(false);
    });

    it('rollback: an older index (lower seq) is refused after a newer version was seen', async () => {
      const older = proxy.lastIndex as string;
      await push(server, author, '1.2.0');
      const newer = await pull();
      expect(newer.code, newer.stdout + newer.stderr).toBe(0);
      expect(newer.json()).toMatchObject({ version: '1.2.0' });
      expect(parseIndex(JSON.parse(proxy.lastIndex as string).index).seq).toBeGreaterThan(
        parseIndex(JSON.parse(older).index).seq,
      );
      proxy.replay = older;
      await expectRefused(victim, pull(), 'REGISTRY_INDEX_ROLLBACK');
      await expectRefused(victim, pull('1.0.0'), 'REGISTRY_INDEX_ROLLBACK');
      proxy.replay = null;
    });

    it('key swap: an index signed by another key, or edited, is refused', async () => {
      const genuine = JSON.parse(proxy.lastIndex as string) as { index: string; signature: string };
      const index = parseIndex(genuine.index);
      const yanked = { ...index, versions: index.versions.map((v) => ({ ...v, yanked: false })) };
      proxy.replay = JSON.stringify(signIndex(makeSigner('mallory').signer, yanked));
      await expectRefused(victim, pull(), 'REGISTRY_INDEX_SIGNATURE_INVALID');
      proxy.replay = JSON.stringify({
        index: genuine.index.replace('"yanked":true', '"yanked":false'),
        signature: genuine.signature,
      });
      await expectRefused(victim, pull('1.1.0'), 'REGISTRY_INDEX_SIGNATURE_INVALID');
      proxy.replay = null;
      expect(existsSync(marker)).toBe(false);
    });

    it('freeze: an index replayed past its expiry is refused', async () => {
      // A second instance on the same data (and key) signing indexes valid for
      // 3 s: long enough for the first, fresh read to finish on a loaded
      // machine (with 1 s it once expired before the client checked it).
      const short = await startRegistryProcess({
        dataDir: server.dataDir,
        args: ['--index-ttl', '3'],
        ...(databaseUrl === undefined ? {} : { databaseUrl }),
      });
      const frozen = await startProxy(short.url);
      try {
        const reader = makeTempSpaces({ system: BUILT_SYSTEM });
        const ref = `${author.username}/utils/greet`;
        const ok = await cli(reader, frozen.url, ['registry', 'versions', 'tool', ref]);
        expect(ok.code, ok.stderr).toBe(0);
        const captured = frozen.lastIndex as string;
        const expires = Date.parse(parseIndex(JSON.parse(captured).index).expires_at);
        while (Date.now() < expires + 100) await new Promise((r) => setTimeout(r, 100));
        frozen.replay = captured;
        await expectRefused(
          reader,
          cli(reader, frozen.url, ['registry', 'pull', 'tool', ref]),
          'REGISTRY_INDEX_EXPIRED',
        );
        frozen.replay = null;
        const fresh = await cli(reader, frozen.url, ['registry', 'pull', 'tool', ref]);
        expect(fresh.code, fresh.stderr).toBe(0);
      } finally {
        await frozen.close();
        await short.kill('SIGTERM');
      }
    });
  },
);

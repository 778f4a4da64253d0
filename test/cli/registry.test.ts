/**
 * The registry end to end (seed 002, "Sharing"): real `rye registry serve`
 * processes on loopback, the real `rye` binary for authors and consumers, each
 * with their own project and user space.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSigner } from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import { rye, type CliResult } from '../helpers/cli.js';
import { makeExecProject } from '../helpers/exec-project.js';
import { DIRECTIVE, KNOWLEDGE } from '../helpers/items.js';
import { startRegistryProcess, type RegistryProcess } from '../helpers/registry-server.js';
import { author, consumer, expectOk, registryRun, type Who } from '../helpers/registry-users.js';
import { TASK_MANAGER_FILES, TASK_MANAGER_ID, writeTaskManager } from '../helpers/task-manager.js';

const run = registryRun;

const plain = (who: Who, args: string[]): Promise<CliResult> =>
  rye([...args, '--project', who.project], { env: who.env });

const TOOL = `import json
__version__ = "1.2.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "utils"
__tool_description__ = "greets"
print(json.dumps({"greeting": "hello from the registry"}))
`;

let server: RegistryProcess;
beforeAll(async () => {
  server = await startRegistryProcess();
});
afterAll(async () => {
  await server.stop();
});

describe('rye registry, end to end', () => {
  it('the seed flow: push-bundle the task manager, pull it into a fresh project, verify, run a tool', async () => {
    const alice = await author(server.url, 'alice');
    const credentials = join(alice.user, '.ai/registry/credentials.json');
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    writeTaskManager(alice, await readSigner(keyDir(alice.spaces)));
    expectOk(
      await plain(alice, [
        'bundle',
        'create',
        TASK_MANAGER_ID,
        '--version',
        '1.0.0',
        '--include',
        'task-manager',
        '--entrypoint',
        'directive:apps/task-manager/build_crud_app',
        '--description',
        'CRUD task manager',
      ]),
    );
    const pushed = await run(alice, server.url, [
      'registry',
      'push-bundle',
      TASK_MANAGER_ID,
      '--json',
    ]);
    expectOk(pushed);
    expect(pushed.json()).toMatchObject({
      ok: true,
      status: 'created',
      namespace: 'alice',
      bundle_id: TASK_MANAGER_ID,
      version: '1.0.0',
      files: Object.keys(TASK_MANAGER_FILES).length,
    });
    const again = await run(alice, server.url, [
      'registry',
      'push-bundle',
      TASK_MANAGER_ID,
      '--json',
    ]);
    expect(again.json()).toMatchObject({ status: 'unchanged', blobs_uploaded: 0 });

    const bob = consumer();
    const pulled = await run(bob, server.url, [
      'registry',
      'pull-bundle',
      `alice/${TASK_MANAGER_ID}`,
      '--json',
    ]);
    expectOk(pulled);
    const doc = pulled.json<{
      files_written: string[];
      trusted_key: { owner: string; path: string };
    }>();
    expect(doc.files_written.sort()).toEqual(Object.keys(TASK_MANAGER_FILES).sort());
    const port = new URL(server.url).port;
    expect(doc.trusted_key.owner).toBe(`alice@127.0.0.1:${port}`);
    expect(readFileSync(doc.trusted_key.path, 'utf8')).toContain(
      `owner = "alice@127.0.0.1:${port}"`,
    );
    for (const rel of Object.keys(TASK_MANAGER_FILES))
      expect(readFileSync(join(bob.project, rel))).toEqual(readFileSync(join(alice.project, rel)));
    expect(
      readFileSync(join(bob.project, '.ai/bundles/apps/task-manager/manifest.yaml'), 'utf8'),
    ).toBe(
      readFileSync(join(alice.project, '.ai/bundles/apps/task-manager/manifest.yaml'), 'utf8'),
    );

    const verified = await plain(bob, ['bundle', 'verify', TASK_MANAGER_ID, '--json']);
    expect(verified.code, verified.stdout).toBe(0);
    const executed = await plain(bob, [
      'execute',
      'tool',
      'apps/task-manager/test_runner',
      '--json',
    ]);
    expect(executed.code, executed.stdout + executed.stderr).toBe(0);
    expect(executed.json()).toMatchObject({ status: 'success', data: { stdout: 'hi\n' } });

    // Pulling the same version again writes nothing.
    const noop = await run(bob, server.url, [
      'registry',
      'pull-bundle',
      `alice/${TASK_MANAGER_ID}`,
      '--json',
    ]);
    expect(noop.json()).toMatchObject({ files_written: [] });
  });

  it('push and pull one item of each type; a pulled tool runs and its lockfile names the registry', async () => {
    const carol = await author(server.url, 'carol');
    carol.write('.ai/tools/utils/greet.py', TOOL);
    // Each item declares the version it is pushed as (issue 11: they must agree).
    carol.write(
      '.ai/directives/utils/hello.md',
      DIRECTIVE('hello', 'utils').replace('version="1.0.0"', 'version="1.2.0"'),
    );
    carol.write(
      '.ai/knowledge/utils/facts.md',
      KNOWLEDGE('facts').replace('version: "1.0.0"', 'version: "1.2.0"'),
    );
    await carol.sign('tool', 'utils/greet');
    await carol.sign('directive', 'utils/hello');
    await carol.sign('knowledge', 'utils/facts');
    for (const [type, id] of [
      ['tool', 'utils/greet'],
      ['directive', 'utils/hello'],
      ['knowledge', 'utils/facts'],
    ] as const) {
      const pushed = await run(carol, server.url, [
        'registry',
        'push',
        type,
        id,
        '--version',
        '1.2.0',
        '--json',
      ]);
      expectOk(pushed);
      expect(pushed.json()).toMatchObject({ status: 'created', namespace: 'carol', item_id: id });
    }

    const dave = consumer();
    for (const [type, id, file] of [
      ['tool', 'utils/greet', '.ai/tools/utils/greet.py'],
      ['directive', 'utils/hello', '.ai/directives/utils/hello.md'],
      ['knowledge', 'utils/facts', '.ai/knowledge/utils/facts.md'],
    ] as const) {
      const pulled = await run(dave, server.url, [
        'registry',
        'pull',
        type,
        `carol/${id}`,
        '--json',
      ]);
      expectOk(pulled);
      expect(readFileSync(join(dave.project, file))).toEqual(
        readFileSync(join(carol.project, file)),
      );
    }
    const lock = JSON.parse(
      readFileSync(join(dave.project, '.ai/lockfiles/utils/greet@1.2.0.lock.json'), 'utf8'),
    ) as { registry: Record<string, unknown> };
    expect(lock.registry).toMatchObject({
      url: server.url,
      namespace: 'carol',
      item_id: 'utils/greet',
      version: '1.2.0',
    });
    expect(String(lock.registry['attested_at'])).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const executed = await plain(dave, ['execute', 'tool', 'utils/greet', '--json']);
    expect(executed.code, executed.stdout + executed.stderr).toBe(0);
    expect(executed.json()).toMatchObject({
      status: 'success',
      data: { greeting: 'hello from the registry' },
      metadata: { lockfile_used: true },
    });

    const verifiedDirective = await plain(dave, ['verify', 'directive', 'utils/hello', '--json']);
    expect(verifiedDirective.code, verifiedDirective.stdout).toBe(0);

    // Browsing: search, versions, yank.
    const found = await run(dave, server.url, ['registry', 'search', 'greet', '--json']);
    expect(
      found.json<{ results: { item_id: string }[] }>().results.map((r) => r.item_id),
    ).toContain('utils/greet');
    const versions = await run(dave, server.url, [
      'registry',
      'versions',
      'tool',
      'carol/utils/greet',
      '--json',
    ]);
    expect(versions.json()).toMatchObject({ versions: [{ version: '1.2.0', yanked: false }] });
    expectOk(
      await run(carol, server.url, [
        'registry',
        'yank',
        'tool',
        'carol/utils/greet',
        '--version',
        '1.2.0',
      ]),
    );
    const after = await run(dave, server.url, [
      'registry',
      'versions',
      'tool',
      'carol/utils/greet',
      '--json',
    ]);
    expect(after.json()).toMatchObject({ versions: [{ version: '1.2.0', yanked: true }] });
  });

  it('refuses: push without a token (exit 1, no login), a pull conflict (exit 1), a bad ref (exit 2)', async () => {
    const erin = await makeExecProject();
    erin.write('.ai/tools/utils/greet.py', TOOL);
    await erin.sign('tool', 'utils/greet');
    const noToken = await run(erin, 'http://127.0.0.1:9', [
      'registry',
      'push',
      'tool',
      'utils/greet',
      '--version',
      '1.0.0',
      '--json',
    ]);
    expect(noToken.code).toBe(1);
    expect(noToken.json()).toMatchObject({ error: { code: 'REGISTRY_AUTH_REQUIRED' } });

    const frank = await author(server.url, 'frank');
    frank.write('.ai/tools/utils/greet.py', TOOL);
    await frank.sign('tool', 'utils/greet');
    expectOk(
      await run(frank, server.url, [
        'registry',
        'push',
        'tool',
        'utils/greet',
        '--version',
        '1.2.0',
      ]),
    );
    const gina = consumer();
    gina.write('.ai/tools/utils/greet.py', 'print("mine")\n');
    const conflict = await run(gina, server.url, [
      'registry',
      'pull',
      'tool',
      'frank/utils/greet',
      '--json',
    ]);
    expect(conflict.code).toBe(1);
    expect(conflict.json()).toMatchObject({ error: { code: 'REGISTRY_PULL_CONFLICT' } });
    expect(readFileSync(join(gina.project, '.ai/tools/utils/greet.py'), 'utf8')).toBe(
      'print("mine")\n',
    );
    expectOk(
      await run(gina, server.url, ['registry', 'pull', 'tool', 'frank/utils/greet', '--force']),
    );

    const badRef = await run(gina, server.url, [
      'registry',
      'pull',
      'tool',
      'no-namespace',
      '--json',
    ]);
    expect(badRef.code).toBe(2);
    expect(badRef.json()).toMatchObject({ error: { code: 'REGISTRY_REF_INVALID' } });
  });

  it('logout revokes the token on the registry: using it again is REGISTRY_AUTH_INVALID', async () => {
    const hank = await author(server.url, 'hank');
    const credentials = join(hank.user, '.ai/registry/credentials.json');
    const saved = JSON.parse(readFileSync(credentials, 'utf8')) as Record<
      string,
      { token: string }
    >;
    const token = saved[server.url]?.token ?? '';
    const out = await run(hank, server.url, ['registry', 'logout', '--json']);
    expectOk(out);
    expect(out.json()).toMatchObject({ revoked: true, forgotten: true });
    const local = await run(hank, server.url, ['registry', 'whoami', '--json']);
    expect(local.code).toBe(1);
    expect(local.json()).toMatchObject({ error: { code: 'REGISTRY_AUTH_REQUIRED' } });
    const revoked = await rye(['registry', 'whoami', '--registry', server.url, '--json'], {
      env: { ...hank.env, RYE_REGISTRY_TOKEN: token },
    });
    expect(revoked.code).toBe(1);
    expect(revoked.json()).toMatchObject({ error: { code: 'REGISTRY_AUTH_INVALID' } });

    const login = await run(
      hank,
      server.url,
      ['registry', 'login', '--username', 'hank', '--password-stdin', '--json'],
      'pw-hank-1\n',
    );
    expectOk(login);
    const who = await run(hank, server.url, ['registry', 'whoami', '--json']);
    expect(who.json()).toMatchObject({
      username: 'hank',
      keys: [{ fingerprint: expect.any(String) }],
    });
    const wrong = await run(
      hank,
      server.url,
      ['registry', 'login', '--username', 'hank', '--password-stdin', '--json'],
      'nope\n',
    );
    expect(wrong.json()).toMatchObject({ error: { code: 'REGISTRY_AUTH_INVALID' } });
    const noStdin = await run(hank, server.url, [
      'registry',
      'login',
      '--username',
      'hank',
      '--json',
    ]);
    expect(noStdin.code).toBe(2);
  });

  it('refuses a genuine answer for another item, served by an impersonating registry (exit 3)', async () => {
    const ivan = await author(server.url, 'ivan');
    for (const name of ['good', 'evil']) {
      ivan.write(`.ai/tools/utils/${name}.py`, TOOL.replace('greets', name));
      await ivan.sign('tool', `utils/${name}`);
      expectOk(
        await run(ivan, server.url, [
          'registry',
          'push',
          'tool',
          `utils/${name}`,
          '--version',
          '1.2.0',
        ]),
      );
    }
    // Captured from the real registry: its key, the signed index of utils/good
    // and the document of utils/evil.
    const keyDoc = await (await fetch(`${server.url}/.well-known/rye-registry.json`)).text();
    const goodIndex = await (
      await fetch(
        `${server.url}/v1/index?kind=item&item_type=tool&namespace=ivan&item_id=utils/good`,
      )
    ).text();
    const evilDoc = await (
      await fetch(`${server.url}/v1/items/tool/ivan/utils/evil?version=1.2.0`)
    ).text();
    const fake = createServer((req, res) => {
      const body = req.url?.startsWith('/.well-known/')
        ? keyDoc
        : req.url?.startsWith('/v1/index?')
          ? goodIndex
          : evilDoc;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
      const jane = consumer();
      const res = await run(jane, url, ['registry', 'pull', 'tool', 'ivan/utils/good', '--json']);
      expect(res.code).toBe(3);
      expect(res.json()).toMatchObject({ error: { code: 'REGISTRY_ATTESTATION_MISMATCH' } });
      expect(existsSync(join(jane.project, '.ai'))).toBe(false);
    } finally {
      fake.closeAllConnections();
      fake.close();
    }
  });
});

describe('rye registry, a registry whose key changed', () => {
  it('refuses with REGISTRY_KEY_CHANGED and the re-pin command (exit 3); pin accepts only the served fingerprint', async () => {
    const first = await startRegistryProcess();
    const port = new URL(first.url).port;
    const kate = await author(first.url, 'kate');
    kate.write('.ai/knowledge/utils/facts.md', KNOWLEDGE('facts'));
    await kate.sign('knowledge', 'utils/facts');
    expectOk(
      await run(kate, first.url, [
        'registry',
        'push',
        'knowledge',
        'utils/facts',
        '--version',
        '1.0.0',
      ]),
    );
    const leo = consumer();
    expectOk(await run(leo, first.url, ['registry', 'pull', 'knowledge', 'kate/utils/facts']));
    await first.stop();

    const second = await startRegistryProcess({ args: ['--port', port] });
    try {
      expect(second.url).toBe(first.url);
      const res = await run(leo, second.url, [
        'registry',
        'pull',
        'knowledge',
        'kate/utils/facts',
        '--json',
      ]);
      expect(res.code).toBe(3);
      const error = res.json<{ error: { code: string; message: string } }>().error;
      expect(error.code).toBe('REGISTRY_KEY_CHANGED');
      expect(error.message).toContain(first.fingerprint);
      expect(error.message).toContain(second.fingerprint);
      expect(error.message).toContain(
        `rye registry pin --registry ${second.url} --fingerprint ${second.fingerprint}`,
      );
      const wrongPin = await run(leo, second.url, [
        'registry',
        'pin',
        '--fingerprint',
        first.fingerprint,
        '--json',
      ]);
      expect(wrongPin.code).toBe(3);
      const pinned = await run(leo, second.url, [
        'registry',
        'pin',
        '--fingerprint',
        second.fingerprint,
        '--json',
      ]);
      expectOk(pinned);
      expect(pinned.json()).toMatchObject({
        fingerprint: second.fingerprint,
        previous: first.fingerprint,
      });
      // The new registry knows nothing of kate: now a plain not-found, not a key refusal.
      const after = await run(leo, second.url, [
        'registry',
        'pull',
        'knowledge',
        'kate/utils/facts',
        '--json',
      ]);
      expect(after.json()).toMatchObject({ error: { code: 'REGISTRY_NOT_FOUND' } });
    } finally {
      await second.stop();
    }
  });
});

describe('rye registry, issue 11: credentials, proof of possession, versions', () => {
  it('sends no token and no password to a registry that swapped its key (exit 3)', async () => {
    const first = await startRegistryProcess();
    const port = Number(new URL(first.url).port);
    const mia = await author(first.url, 'mia');
    mia.write('.ai/tools/utils/greet.py', TOOL);
    await mia.sign('tool', 'utils/greet');
    await first.stop();

    // Same origin, another key: it records everything it receives.
    const seen: { line: string; authorization: string | undefined; body: string }[] = [];
    const otherKey = JSON.stringify({
      protocol: 1,
      algorithm: 'ed25519',
      public_key: readFileSync(join(mia.user, '.ai/keys/public_key.pem'), 'utf8'),
      fingerprint: (await readSigner(keyDir(mia.spaces))).fingerprint,
    });
    const swapped = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({
          line: `${req.method ?? ''} ${req.url ?? ''}`,
          authorization: req.headers.authorization,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(otherKey);
      });
    });
    await new Promise<void>((resolve) => swapped.listen(port, '127.0.0.1', resolve));
    try {
      for (const [args, stdin] of [
        [['registry', 'whoami', '--json'], undefined],
        [['registry', 'login', '--username', 'mia', '--password-stdin', '--json'], 'pw-mia-1\n'],
        [['registry', 'signup', '--username', 'mia2', '--password-stdin', '--json'], 'pw-mia-1\n'],
        [['registry', 'push', 'tool', 'utils/greet', '--version', '1.2.0', '--json'], undefined],
        [['registry', 'keys', 'add', '--json'], undefined],
        [
          ['registry', 'yank', 'tool', 'mia/utils/greet', '--version', '1.2.0', '--json'],
          undefined,
        ],
      ] as const) {
        const res = await run(mia, first.url, [...args], stdin);
        expect(res.code, `${args.join(' ')}: ${res.stdout}${res.stderr}`).toBe(3);
        expect(res.json()).toMatchObject({ error: { code: 'REGISTRY_KEY_CHANGED' } });
      }
      const logout = await run(mia, first.url, ['registry', 'logout', '--json']);
      expectOk(logout);
      expect(logout.json()).toMatchObject({ revoked: false, forgotten: true });
      expect(new Set(seen.map((s) => s.line))).toEqual(
        new Set(['GET /.well-known/rye-registry.json']),
      );
      expect(seen.filter((s) => s.authorization !== undefined)).toEqual([]);
      expect(seen.filter((s) => s.body.includes('pw-mia-1'))).toEqual([]);
    } finally {
      swapped.closeAllConnections();
      swapped.close();
    }
  });

  it("keys add proves possession; a bare POST of another author's key is refused and locks nobody out", async () => {
    const nina = await author(server.url, 'nina');
    const ninaKey = readFileSync(join(nina.user, '.ai/keys/public_key.pem'), 'utf8');
    const omar = await makeExecProject();
    expectOk(
      await run(
        omar,
        server.url,
        ['registry', 'signup', '--username', 'omar', '--password-stdin'],
        'pw-omar-1\n',
      ),
    );
    const saved = JSON.parse(
      readFileSync(join(omar.user, '.ai/registry/credentials.json'), 'utf8'),
    ) as Record<string, { token: string }>;
    const squat = await fetch(`${server.url}/v1/keys`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${saved[server.url]?.token ?? ''}`,
      },
      body: JSON.stringify({ public_key: ninaKey }),
    });
    expect(squat.status).toBe(400);
    expect(((await squat.json()) as { error: { code: string } }).error.code).toBe(
      'REGISTRY_KEY_PROOF_MISSING',
    );
    // Nina's key is hers: she publishes with it.
    nina.write('.ai/knowledge/utils/facts.md', KNOWLEDGE('facts'));
    await nina.sign('knowledge', 'utils/facts');
    expectOk(
      await run(nina, server.url, [
        'registry',
        'push',
        'knowledge',
        'utils/facts',
        '--version',
        '1.0.0',
      ]),
    );
  });

  it('refuses a push whose version is not the declared one (exit 2, nothing published), unless --allow-version-mismatch', async () => {
    const pat = await author(server.url, 'pat');
    pat.write('.ai/tools/utils/greet.py', TOOL);
    await pat.sign('tool', 'utils/greet');
    const refused = await run(pat, server.url, [
      'registry',
      'push',
      'tool',
      'utils/greet',
      '--version',
      '9.9.9',
      '--json',
    ]);
    expect(refused.code).toBe(2);
    const error = refused.json<{ error: { code: string; message: string } }>().error;
    expect(error.code).toBe('REGISTRY_VERSION_MISMATCH');
    expect(error.message).toContain('declares version 1.2.0');
    const none = await run(pat, server.url, [
      'registry',
      'versions',
      'tool',
      'pat/utils/greet',
      '--json',
    ]);
    expect(none.json()).toMatchObject({ error: { code: 'REGISTRY_NOT_FOUND' } });

    const forced = await run(pat, server.url, [
      'registry',
      'push',
      'tool',
      'utils/greet',
      '--version',
      '9.9.9',
      '--allow-version-mismatch',
    ]);
    expectOk(forced);
    expect(forced.stdout).toContain('the item declares version 1.2.0');
  });

  it('warns when a tool of a multi-file folder is pushed alone, and points to push-bundle', async () => {
    const quinn = await author(server.url, 'quinn');
    quinn.write('.ai/tools/utils/greet.py', TOOL);
    quinn.write('.ai/tools/utils/__init__.py', '');
    await quinn.sign('tool', 'utils/greet');
    const res = await run(quinn, server.url, [
      'registry',
      'push',
      'tool',
      'utils/greet',
      '--version',
      '1.2.0',
      '--json',
    ]);
    expectOk(res);
    const warnings = res.json<{ warnings: string[] }>().warnings;
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('__init__.py');
    expect(warnings[0]).toContain('rye registry push-bundle');
  });
});

/**
 * Strings from outside (trust files, file names, manifests, registry answers)
 * reach the terminal escaped: no raw ESC sequence, CR, forged LF, C1 control
 * or bidi override, in human output, warnings, errors and JSON documents.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatTrustToml, readSigner } from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import { rye, type CliResult } from '../helpers/cli.js';
import { makeExecProject } from '../helpers/exec-project.js';
import { KNOWLEDGE } from '../helpers/items.js';
import { TASK_MANAGER_ID, writeTaskManager } from '../helpers/task-manager.js';
import { makeTempSpaces, type TempSpaces } from '../helpers/temp-space.js';

/** Clears the screen, forges a line, reverses the text after it, opens a C1 CSI. */
const HOSTILE = 'mallory\u001b[2J\r\nverified OK \u202eevil\u009b31m';
const SHOWN = 'mallory\\x1b[2J\\r\\nverified OK \\u202eevil\\x9b31m';

/**
 * What a terminal acts on or hides, written independently of the code under
 * test. LF is left out: it is the CLI's own line break, checked line by line.
 */
const RAW =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/;

const PIN_TOOL = `__version__ = "1.2.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "t"
__tool_description__ = "lock test"
print(1)
`;

function expectClean(res: CliResult): void {
  expect(RAW.test(res.stdout), JSON.stringify(res.stdout)).toBe(false);
  expect(RAW.test(res.stderr), JSON.stringify(res.stderr)).toBe(false);
  for (const line of `${res.stdout}\n${res.stderr}`.split('\n'))
    expect(line.startsWith('verified OK')).toBe(false);
}

const inProject = (s: TempSpaces, ...args: string[]) =>
  rye([...args, '--project', s.project], { env: s.env });

/** A key pair in user space, a knowledge item it signed, and its fingerprint and PEM. */
async function signedNote(): Promise<{ s: TempSpaces; fingerprint: string; pem: string }> {
  const s = makeTempSpaces();
  expect((await rye(['keys', 'generate'], { env: s.env })).code).toBe(0);
  s.write('.ai/knowledge/note.md', KNOWLEDGE('note'));
  expect((await inProject(s, 'sign', 'knowledge', 'note')).code).toBe(0);
  const key = (await rye(['keys', 'show', '--json'], { env: s.env })).json<{
    fingerprint: string;
    public_key_pem: string;
  }>();
  return { s, fingerprint: key.fingerprint, pem: key.public_key_pem };
}

/** A cloned project's trust file: this key, under a hostile owner and attestation. */
function hostileTrustFile(s: TempSpaces, fingerprint: string, pem: string): string {
  return s.write(
    `.ai/trusted_keys/${fingerprint}.toml`,
    formatTrustToml({ fingerprint, owner: HOSTILE, attestation: HOSTILE, publicKeyPem: pem }),
  );
}

describe('human output escapes strings from trust files, file names, manifests and lockfiles', () => {
  it('rye trust list shows a hostile owner escaped on one line; --json keeps its value', async () => {
    const { s, fingerprint, pem } = await signedNote();
    hostileTrustFile(s, fingerprint, pem);
    // Project keys count (and are listed without "pending") once the user approves the store.
    expect((await inProject(s, 'trust', 'approve')).code).toBe(0);
    const list = await inProject(s, 'trust', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`${fingerprint}  project  ${SHOWN}\n`);
    expectClean(list);

    const json = await inProject(s, 'trust', 'list', '--json');
    expectClean(json);
    expect(json.stdout).toContain('\\u202e');
    const keys = json.json<{ keys: { owner: string; space: string }[] }>().keys;
    expect(keys.find((k) => k.space === 'project')?.owner).toBe(HOSTILE);
  });

  it('rye verify names the signer from the trust file escaped', async () => {
    const { s, fingerprint, pem } = await signedNote();
    hostileTrustFile(s, fingerprint, pem);
    expect((await inProject(s, 'trust', 'approve')).code).toBe(0);
    const res = await inProject(s, 'verify', 'knowledge', 'note');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`ok        note.md (project)  ${fingerprint} ${SHOWN}\n`);
    expectClean(res);
  });

  it('rye trust add of a hostile TOML document prints its owner escaped', async () => {
    const { s, fingerprint, pem } = await signedNote();
    const file = hostileTrustFile(s, fingerprint, pem);
    const other = makeTempSpaces();
    const res = await rye(['trust', 'add', file], { env: other.env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`Trusted ${fingerprint} (${SHOWN}) in user space: `);
    expectClean(res);
  });

  it('a trust file warning quotes a hostile file name and fingerprint escaped', async () => {
    const { s, pem } = await signedNote();
    // The recorded fingerprint does not match the key: the warning quotes both.
    s.write(
      '.ai/trusted_keys/x\u001b[2J\u202e.toml',
      formatTrustToml({ fingerprint: HOSTILE, owner: '', attestation: '', publicKeyPem: pem }),
    );
    const res = await inProject(s, 'trust', 'list');
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('warning[TRUST_FINGERPRINT_MISMATCH]: ');
    expect(res.stderr).toContain('x\\x1b[2J\\u202e.toml');
    expect(res.stderr).toContain(`it says fingerprint ${SHOWN} but`);
    expectClean(res);
  });

  it('rye verify-file shows a hostile file name escaped, the verdict on the next line', async () => {
    const s = makeTempSpaces();
    const path = s.write('note\u001b[2J\r\nverified OK \u202e.md', KNOWLEDGE('note'));
    const res = await rye(['verify-file', path, '--item-type', 'knowledge'], { env: s.env });
    expect(res.code).toBe(3);
    const [first, second] = res.stdout.split('\n');
    expect(first).toBe(`unsigned  ${s.project}/note\\x1b[2J\\r\\nverified OK \\u202e.md`);
    expect(second).toMatch(/^ {10}INTEGRITY_UNSIGNED: /);
    expectClean(res);
  });

  it('rye bundle inspect shows a hostile manifest description escaped', async () => {
    const p = await makeExecProject();
    writeTaskManager(p, await readSigner(keyDir(p.spaces)));
    const created = await rye(
      ['bundle', 'create', TASK_MANAGER_ID, '--version', '1.0.0', '--include', 'task-manager'],
      { env: p.env, cwd: p.project },
    );
    expect(created.code, created.stderr).toBe(0);
    const manifest = join(p.project, '.ai/bundles', TASK_MANAGER_ID, 'manifest.yaml');
    const text = readFileSync(manifest, 'utf8');
    writeFileSync(
      manifest,
      text.replace(
        /^( {2}description:).*$/m,
        '$1 "mallory\\e[2J\\r\\nverified OK \\u202eevil\\x9b31m"',
      ),
    );
    const res = await rye(['bundle', 'inspect', TASK_MANAGER_ID], { env: p.env, cwd: p.project });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`\n  ${SHOWN}\n`);
    expectClean(res);
  });

  it('rye lock show escapes raw bidi and C1 characters of a lockfile; --json keeps its value', async () => {
    const p = await makeExecProject();
    p.write('.ai/tools/t/pin.py', PIN_TOOL);
    await p.sign('tool', 't/pin');
    const cli = (...args: string[]) => rye([...args, '--project', p.project], { env: p.env });
    expect((await cli('lock', 'update', 't/pin')).code).toBe(0);
    const lockfile = join(p.project, '.ai/lockfiles/t/pin@1.2.0.lock.json');
    // Valid JSON: ESC as an escape, the bidi override and C1 CSI raw, a lone CR between tokens.
    const note = 'mallory\\u001b[2J verified OK \u202eevil\u009b31m';
    writeFileSync(
      lockfile,
      readFileSync(lockfile, 'utf8').replace(
        /"registry": null/,
        `"registry":\r{"note": "${note}"}`,
      ),
    );
    const shown = await cli('lock', 'show', 't/pin');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('"note": "mallory\\u001b[2J verified OK \\u202eevil\\x9b31m"');
    expectClean(shown);
    const json = await cli('lock', 'show', 't/pin', '--json');
    expectClean(json);
    expect(json.json<{ lockfile: unknown }>().lockfile).toEqual(
      JSON.parse(readFileSync(lockfile, 'utf8')),
    );
  });
});

describe('human output escapes registry answers', () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
    server = undefined;
  });

  /** A loopback "registry" answering every request with `status` and `body`. */
  async function fakeRegistry(status: number, body: unknown): Promise<string> {
    server = createServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
    const listening = server;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  }

  it('an error message from the server is printed escaped, under its code', async () => {
    const url = await fakeRegistry(404, {
      error: { code: 'REGISTRY_NOT_FOUND', message: HOSTILE },
    });
    const s = makeTempSpaces();
    const res = await inProject(s, 'registry', 'versions', 'tool', 'alice/x', '--registry', url);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^error\[REGISTRY_NOT_FOUND\]: mallory\S*\[2J\S*verified OK /);
    expect(res.stderr).toContain('\\u202eevil');
    expectClean(res);

    const json = await inProject(
      s,
      'registry',
      'versions',
      'tool',
      'alice/x',
      '--json',
      '--registry',
      url,
    );
    expect(json.code).toBe(1);
    expect(json.json()).toMatchObject({ error: { code: 'REGISTRY_NOT_FOUND' } });
    expectClean(json);
  });

  it('a search result description is printed escaped; --json keeps its value', async () => {
    const result = {
      kind: 'item',
      item_type: 'tool',
      namespace: 'alice',
      item_id: 'utils/x',
      latest_version: '1.0.0',
      versions: 1,
      description: HOSTILE,
      published_at: '2025-01-01T00:00:00Z',
    };
    const url = await fakeRegistry(200, { results: [result] });
    const s = makeTempSpaces();
    const res = await inProject(s, 'registry', 'search', 'x', '--registry', url);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(` ${SHOWN}\n`);
    expect(res.stdout.split('\n')).toHaveLength(2);
    expectClean(res);

    const json = await inProject(s, 'registry', 'search', 'x', '--json', '--registry', url);
    expectClean(json);
    expect(json.json<{ results: { description: string }[] }>().results[0]?.description).toBe(
      HOSTILE,
    );
  });
});

describe('usage errors escape the arguments they quote', () => {
  it('an unknown option is quoted escaped (exit 2)', async () => {
    const s = makeTempSpaces();
    const res = await rye(['trust', 'list', '--bogus\u001b[2J\r\u202e'], { env: s.env });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("unknown option '--bogus\\x1b[2J\\r\\u202e'");
    expectClean(res);
  });
});

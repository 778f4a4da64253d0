/**
 * Daemon sandboxes on real bwrap (CONTAINMENT.md §1.9): a tool whose signed
 * permissions say `daemon: true` leaves what it starts running in its
 * sandbox after the call; rye records it in the user space and stops it by
 * the identity it recorded. Without the declaration, or with the grant
 * taken away, nothing outlives the call. A pid in a record that no longer
 * names the sandbox's init is never signalled.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { daemonsDir, listDaemons, parseSandboxInfo } from '../../../src/executor/sandbox/index.js';
import {
  LANGUAGES,
  RYE_BIN,
  makeFixture,
  probe,
  probeId,
  processesWith,
  secret,
  waitFor,
  writeProbe,
  type Fixture,
} from './support.js';

let fx: Fixture;
const baits: ChildProcess[] = [];

beforeAll(async () => {
  fx = await makeFixture();
  for (const lang of LANGUAGES) {
    writeProbe(fx, lang, 'daemon', { permissions: { write: ['out/**'], daemon: true } });
    writeProbe(fx, lang, 'plain', { permissions: { write: ['out/**'] } });
  }
  await fx.sign('esc/**');
}, 60_000);

afterAll(async () => {
  // Whatever a failed test left running.
  const { daemons } = await listDaemons(fx.user);
  for (const d of daemons) rye(['sandbox', 'stop', d.id]);
  fx.remove();
});

afterEach(() => {
  for (const bait of baits.splice(0)) bait.kill('SIGKILL');
});

/** The real CLI in JSON mode (the fixture's RYE_CAP_TOKEN is a fake secret: left out). */
function rye(args: string[]) {
  const env = { ...fx.env };
  delete env['RYE_CAP_TOKEN'];
  const r = spawnSync(process.execPath, [RYE_BIN, ...args, '--project', fx.project, '--json'], {
    env,
    encoding: 'utf8',
  });
  return { code: r.status, doc: JSON.parse(r.stdout || '{}') as Record<string, unknown>, r };
}

/** Start a lingering child that would write `late` after `seconds`. */
async function linger(toolId: string, seconds: string, tag: string, late: string) {
  return probe(fx, toolId, 'linger', { a: late, b: seconds, tag });
}

describe('a declared daemon', () => {
  it.each(LANGUAGES)(
    'a %s daemon outlives the call, is listed, and rye sandbox stop ends it before its marker',
    async (lang) => {
      const tag = secret(`daemon${lang}`);
      const late = join(fx.project, 'out', `late-${tag}`);
      const r = await linger(probeId(lang, 'daemon'), '4', tag, late);
      expect(r.ok, r.text).toBe(true);
      const id = r.result.metadata.daemon_sandbox;
      expect(id, r.text).toMatch(/^[0-9a-f]{12}$/);
      expect(r.result.metadata.sandbox).toBe('bwrap');
      // The call returned; the child still runs, in its sandbox.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(processesWith(tag).length).toBeGreaterThan(0);
      const listed = rye(['sandbox', 'list']);
      expect(listed.code, listed.r.stderr).toBe(0);
      const daemons = listed.doc['daemons'] as { id: string; item_id: string; project: string }[];
      expect(daemons.find((d) => d.id === id)).toMatchObject({
        item_id: probeId(lang, 'daemon'),
        project: fx.project,
      });
      const stopped = rye(['sandbox', 'stop', id as string]);
      expect(stopped.code, stopped.r.stderr).toBe(0);
      expect(stopped.doc['stopped']).toEqual([{ id, stopped: true }]);
      expect(processesWith(tag)).toEqual([]);
      expect(existsSync(join(daemonsDir(fx.user), `${id}.json`))).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 4_300));
      expect(existsSync(late)).toBe(false);
    },
    20_000,
  );

  it('a daemon tool that leaves nothing running leaves no record', async () => {
    const r = await probe(fx, probeId('shell', 'daemon'), 'read', { a: '/etc/hostname' });
    expect(r.result.status, r.text).toBe('success');
    expect(r.result.metadata.daemon_sandbox).toBeUndefined();
    const { daemons } = await listDaemons(fx.user);
    expect(daemons.filter((d) => d.item_id === probeId('shell', 'daemon'))).toEqual([]);
  });

  it('a daemon that exits by itself is dropped from the list', async () => {
    const tag = secret('selfexit');
    const late = join(fx.project, 'out', `late-${tag}`);
    const r = await linger(probeId('shell', 'daemon'), '0.3', tag, late);
    const id = r.result.metadata.daemon_sandbox as string;
    expect(id, r.text).toMatch(/^[0-9a-f]{12}$/);
    await waitFor(
      () => existsSync(late),
      (done) => done,
      3_000,
    );
    await waitFor(
      () => processesWith(tag),
      (p) => p.length === 0,
      2_000,
    );
    const { daemons } = await listDaemons(fx.user);
    expect(daemons.map((d) => d.id)).not.toContain(id);
    expect(existsSync(join(daemonsDir(fx.user), `${id}.json`))).toBe(false);
  });
});

/**
 * The call left no daemon: nothing recorded, no process of `tag` within 1 s,
 * and the late marker (due 1 s after the call) never written.
 */
async function expectDiedWithCall(
  r: Awaited<ReturnType<typeof probe>>,
  tag: string,
  late: string,
): Promise<void> {
  expect(r.ok, r.text).toBe(true);
  expect(r.result.metadata.daemon_sandbox).toBeUndefined();
  expect(
    await waitFor(
      () => processesWith(tag),
      (p) => p.length === 0,
      1_000,
    ),
  ).toEqual([]);
  await new Promise((resolve) => setTimeout(resolve, 1_300));
  expect(existsSync(late)).toBe(false);
}

describe('no daemon without the declaration and the grant', () => {
  it('a tool that does not declare daemon: its child dies with the call, and nothing is recorded', async () => {
    const tag = secret('plain');
    const late = join(fx.project, 'out', `late-${tag}`);
    const r = await linger(probeId('node', 'plain'), '1', tag, late);
    await expectDiedWithCall(r, tag, late);
  });

  it('a caller that grants no daemon (a directive\'s <sandbox daemon="false"/>): the same', async () => {
    const tag = secret('denied');
    const late = join(fx.project, 'out', `late-${tag}`);
    const r = await probe(
      fx,
      probeId('python', 'daemon'),
      'linger',
      { a: late, b: '1', tag },
      { sandbox: { grants: { daemon: false } } },
    );
    await expectDiedWithCall(r, tag, late);
  });
});

describe("bwrap's info", () => {
  it('is read as JSON with a pid above 1 and a PID namespace, else nothing is recorded', () => {
    expect(parseSandboxInfo('{"child-pid": 4242, "pid-namespace": 4026532181}')).toEqual({
      pid: 4242,
      pidNs: 'pid:[4026532181]',
    });
    for (const bad of [
      undefined,
      '',
      '{"child-pid": 4242}',
      '{"child-pid": 1, "pid-namespace": 7}',
      '{"child-pid": "4242", "pid-namespace": 7}',
      'null',
      '{"child-pid": 4242, "pid-namespace": 7',
    ])
      expect(parseSandboxInfo(bad), String(bad)).toBeNull();
  });
});

describe('stopping never trusts a pid', () => {
  it('a record whose pid now names another process: that process is not signalled', async () => {
    const tag = secret('reused');
    const late = join(fx.project, 'out', `late-${tag}`);
    const r = await linger(probeId('shell', 'daemon'), '4', tag, late);
    const id = r.result.metadata.daemon_sandbox as string;
    const file = join(daemonsDir(fx.user), `${id}.json`);
    const bait = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], {
      stdio: 'ignore',
    });
    baits.push(bait);
    // The record now names the bait: the pid a reused slot (or an edit) would give.
    const record = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const realPid = record['pid'];
    writeFileSync(file, JSON.stringify({ ...record, pid: bait.pid }));
    const stopped = rye(['sandbox', 'stop', id]);
    expect(stopped.code, stopped.r.stderr).toBe(0);
    expect(stopped.doc['stopped']).toEqual([{ id, stopped: false }]);
    expect(bait.exitCode).toBeNull();
    expect(bait.signalCode).toBeNull();
    // The real sandbox is untouched by that stop; end it by its true record.
    writeFileSync(file, JSON.stringify({ ...record, pid: realPid }));
    expect(rye(['sandbox', 'stop', id]).doc['stopped']).toEqual([{ id, stopped: true }]);
    expect(processesWith(tag)).toEqual([]);
  }, 15_000);

  it('an unknown or malformed id is SANDBOX_NOT_FOUND, and nothing is stopped', () => {
    for (const id of ['0123456789ab', '../../etc', 'x']) {
      const r = rye(['sandbox', 'stop', id]);
      expect(r.code).not.toBe(0);
      expect((r.doc['error'] as { code?: string } | undefined)?.code, r.r.stdout).toBe(
        'SANDBOX_NOT_FOUND',
      );
    }
  });

  it('a record that is not one rye wrote is listed as unreadable and left alone', () => {
    const file = join(daemonsDir(fx.user), 'feedfeedfeed.json');
    writeFileSync(file, JSON.stringify({ id: 'feedfeedfeed', pid: 1 }));
    const listed = rye(['sandbox', 'list']);
    expect(listed.doc['unreadable']).toContain('feedfeedfeed.json');
    expect(readdirSync(daemonsDir(fx.user))).toContain('feedfeedfeed.json');
    const r = rye(['sandbox', 'stop', 'feedfeedfeed']);
    expect((r.doc['error'] as { code?: string }).code).toBe('SANDBOX_NOT_FOUND');
  });

  it('under RYE_CAP_TOKEN stopping is refused (CAPABILITY_COMMAND_REFUSED) and the daemon runs on', async () => {
    const tag = secret('captoken');
    const late = join(fx.project, 'out', `late-${tag}`);
    const r = await linger(probeId('shell', 'daemon'), '4', tag, late);
    const id = r.result.metadata.daemon_sandbox as string;
    const res = spawnSync(
      process.execPath,
      [RYE_BIN, 'sandbox', 'stop', id, '--project', fx.project, '--json'],
      { env: { ...fx.env, RYE_CAP_TOKEN: 'rye-cap-v1.forged' }, encoding: 'utf8' },
    );
    expect(res.status).not.toBe(0);
    expect((JSON.parse(res.stdout) as { error: { code: string } }).error.code).toBe(
      'CAPABILITY_COMMAND_REFUSED',
    );
    expect(processesWith(tag).length).toBeGreaterThan(0);
    expect(rye(['sandbox', 'stop', id]).doc['stopped']).toEqual([{ id, stopped: true }]);
  }, 15_000);
});

/**
 * Daemon sandboxes (CONTAINMENT.md §1.9): a tool whose effective `daemon` is
 * true leaves its sandbox running after the call. rye records each one in the
 * user space (`~/.ai/sandboxes/<id>.json`), which no sandbox can see or
 * write, and stops it by the identity it recorded: the host pid of the
 * sandbox's init together with that process's start time and PID namespace,
 * so a pid reused by another process, or one named in a project file, is
 * never signalled. Killing a PID namespace's init kills everything in it.
 *
 * Linux only (/proc).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { RyeError } from '../../errors/index.js';
import { writeFileAtomic } from '../../platform/index.js';
import { removePidsGroup } from './limits.js';

/** What rye knows of one daemon sandbox. */
export interface DaemonRecord {
  readonly id: string;
  /** The tool that started it. */
  readonly item_id: string;
  readonly project: string;
  readonly started_at: string;
  /** The host pid of the sandbox's init (bwrap's pid 1). */
  readonly pid: number;
  /** That process's start time, in clock ticks after boot (/proc/<pid>/stat field 22). */
  readonly start_ticks: string;
  /** Its PID namespace, as /proc/<pid>/ns/pid names it (`pid:[4026532...]`). */
  readonly pid_ns: string;
  readonly network: boolean;
  /** The pids cgroup it runs in (root only), removed once it stops. */
  readonly cgroup: string | null;
}

/** A record as `list` reports it. */
export interface DaemonEntry extends DaemonRecord {
  readonly running: boolean;
}

/** Time a daemon's processes get between SIGTERM and the SIGKILL of its init. */
export const DAEMON_STOP_GRACE_MS = 2_000;

const ID = /^[0-9a-f]{12}$/;
const CGROUP = /^\/sys\/fs\/cgroup(\/pids)?\/rye-[0-9a-f]{12}$/;

/** A new daemon id: 12 hex digits. */
export function newDaemonId(): string {
  return randomBytes(6).toString('hex');
}

/** Where the records live: `<user>/.ai/sandboxes`. */
export function daemonsDir(userSpace: string): string {
  return join(userSpace, '.ai', 'sandboxes');
}

/** The identity of a running process (its start time and PID namespace), or null once it is gone. */
export function processIdentity(pid: number): { startTicks: string; pidNs: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the command's closing parenthesis start at field 3 (state).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return null;
    const startTicks = fields[19];
    if (startTicks === undefined) return null;
    return { startTicks, pidNs: readlinkSync(`/proc/${pid}/ns/pid`) };
  } catch {
    return null;
  }
}

/** Whether the recorded sandbox still runs: the same process, never a reused pid. */
export function daemonRunning(record: DaemonRecord): boolean {
  const now = processIdentity(record.pid);
  return now !== null && now.startTicks === record.start_ticks && now.pidNs === record.pid_ns;
}

/** What bwrap's `--info-fd` says of a sandbox: its init's host pid and its PID namespace. */
export interface SandboxInfo {
  readonly pid: number;
  readonly pidNs: string;
}

/**
 * bwrap's `--info-fd` document (`{"child-pid": N, "pid-namespace": I, …}`),
 * or null when it is not one. bwrap writes it before the tool runs and the
 * tool never holds that descriptor.
 */
export function parseSandboxInfo(text: string | undefined): SandboxInfo | null {
  let value: unknown;
  try {
    value = JSON.parse(text ?? '');
  } catch {
    return null;
  }
  const info = value as { 'child-pid'?: unknown; 'pid-namespace'?: unknown } | null;
  const pid = info?.['child-pid'];
  const ns = info?.['pid-namespace'];
  if (!Number.isSafeInteger(pid) || (pid as number) < 2 || !Number.isSafeInteger(ns)) return null;
  return { pid: pid as number, pidNs: `pid:[${ns as number}]` };
}

/**
 * Record the sandbox bwrap reported, if its init still runs the namespace
 * bwrap made and has a process to wait for (a daemon tool that started
 * nothing leaves no sandbox): returns the record, or null. A pid that
 * meanwhile names another process fails the namespace check.
 */
export async function recordDaemon(
  userSpace: string,
  info: SandboxInfo,
  fields: Omit<DaemonRecord, 'pid' | 'start_ticks' | 'pid_ns' | 'started_at'>,
): Promise<DaemonRecord | null> {
  const identity = processIdentity(info.pid);
  if (identity === null || identity.pidNs !== info.pidNs) return null;
  // An init with no process left to wait for is on its way out.
  if (!hasChildren(info.pid, identity.pidNs)) return null;
  const record: DaemonRecord = {
    ...fields,
    pid: info.pid,
    started_at: new Date().toISOString(),
    start_ticks: identity.startTicks,
    pid_ns: identity.pidNs,
  };
  await writeFileAtomic(
    join(daemonsDir(userSpace), `${record.id}.json`),
    `${JSON.stringify(record, null, 2)}\n`,
    { mode: 0o600, dirMode: 0o700 },
  );
  return record;
}

/**
 * Every recorded daemon sandbox that still runs, newest first. Records of
 * sandboxes that are gone are dropped (with their cgroup); unreadable
 * records are reported by file name and left alone.
 */
export async function listDaemons(
  userSpace: string,
): Promise<{ daemons: DaemonEntry[]; unreadable: string[] }> {
  const dir = daemonsDir(userSpace);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { daemons: [], unreadable: [] };
  }
  const daemons: DaemonEntry[] = [];
  const unreadable: string[] = [];
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    const record = readRecord(dir, name.slice(0, -5));
    if (record === null) {
      unreadable.push(name);
      continue;
    }
    if (daemonRunning(record)) daemons.push({ ...record, running: true });
    else await forget(userSpace, record);
  }
  daemons.sort((a, b) => b.started_at.localeCompare(a.started_at));
  return { daemons, unreadable };
}

/** The record of `id`, or SANDBOX_NOT_FOUND. */
export function daemonRecord(userSpace: string, id: string): DaemonRecord {
  const record = ID.test(id) ? readRecord(daemonsDir(userSpace), id) : null;
  if (record === null)
    throw new RyeError('SANDBOX_NOT_FOUND', `No daemon sandbox ${JSON.stringify(id)} is recorded`, {
      id,
    });
  return record;
}

/**
 * Stop a recorded sandbox: SIGTERM every process of its PID namespace (found
 * in /proc by the recorded namespace, not by a pid anyone wrote down), then,
 * if its init is still there after {@link DAEMON_STOP_GRACE_MS}, SIGKILL the
 * init, which takes the whole namespace with it. The record and its cgroup
 * are removed. Returns false when it had already stopped.
 */
export async function stopDaemon(userSpace: string, record: DaemonRecord): Promise<boolean> {
  if (!daemonRunning(record)) {
    await forget(userSpace, record);
    return false;
  }
  for (const pid of namespaceMembers(record.pid_ns)) if (pid !== record.pid) signal(pid, 'SIGTERM');
  const deadline = Date.now() + DAEMON_STOP_GRACE_MS;
  while (daemonRunning(record) && Date.now() < deadline) await delay(20);
  if (daemonRunning(record)) signal(record.pid, 'SIGKILL');
  for (let i = 0; i < 100 && daemonRunning(record); i += 1) await delay(20);
  await forget(userSpace, record);
  return true;
}

async function forget(userSpace: string, record: DaemonRecord): Promise<void> {
  if (record.cgroup !== null) await removePidsGroup(record.cgroup);
  rmSync(join(daemonsDir(userSpace), `${record.id}.json`), { force: true });
}

/** Whether the init has a process to wait for (its children, else any other member of its namespace). */
function hasChildren(pid: number, pidNs: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim() !== '';
  } catch {
    return namespaceMembers(pidNs).some((member) => member !== pid);
  }
}

function namespaceMembers(pidNs: string): number[] {
  const members: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/ns/pid`) === pidNs) members.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return members;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** A record file read back, checked field by field; null when it is not one rye wrote. */
function readRecord(dir: string, id: string): DaemonRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(join(dir, `${id}.json`), 'utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const r = value as Record<string, unknown>;
  const ok =
    r['id'] === id &&
    typeof r['item_id'] === 'string' &&
    typeof r['project'] === 'string' &&
    typeof r['started_at'] === 'string' &&
    Number.isSafeInteger(r['pid']) &&
    (r['pid'] as number) > 1 &&
    typeof r['start_ticks'] === 'string' &&
    /^\d+$/.test(r['start_ticks']) &&
    typeof r['pid_ns'] === 'string' &&
    /^pid:\[\d+\]$/.test(r['pid_ns']) &&
    typeof r['network'] === 'boolean' &&
    (r['cgroup'] === null || (typeof r['cgroup'] === 'string' && CGROUP.test(r['cgroup'])));
  return ok ? (value as DaemonRecord) : null;
}

import { execFileSync, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { closeSync, constants, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { descriptorWriter, drained, guardedWriter, type OutputStream } from '../../src/cli/pipe.js';
import { RYE_BIN } from '../helpers/cli.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

/** Run rye with the read end of stdout (or stderr) closed before it writes a byte. */
function withClosedPipe(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  closed: 'stdout' | 'stderr',
): Promise<{ code: number | null; signal: string | null; other: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RYE_BIN, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const open = closed === 'stdout' ? child.stderr : child.stdout;
    (closed === 'stdout' ? child.stdout : child.stderr).destroy();
    let other = '';
    open.setEncoding('utf8').on('data', (d: string) => (other += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, other }));
  });
}

describe('a closed output pipe (`rye … | head -1`)', () => {
  const commands: [string[], number][] = [
    [['--help'], 0],
    [['trust', 'list'], 0],
    [['bundle', 'list', '--json'], 0],
    [['keys', 'show', '--json'], 1],
    [['verify', 'tool', 'no/such', '--json'], 1],
    [['completion', 'bash'], 0],
  ];
  for (const [args, code] of commands) {
    it(`rye ${args.join(' ')} exits ${code} quietly when stdout is closed`, async () => {
      const s = makeTempSpaces();
      // Every command but completion works in a project.
      const project = args[0] === 'completion' ? [] : ['--project', s.project];
      const res = await withClosedPipe([...args, ...project], s.env, 'stdout');
      expect(res.signal).toBeNull();
      expect(res.other).not.toMatch(/EPIPE|Unhandled|at /);
      expect(res.other).toBe('');
      expect(res.code).toBe(code);
    });
  }

  it('an error reported on a closed stderr exits with its own code, quietly', async () => {
    const s = makeTempSpaces();
    const res = await withClosedPipe(['keys', 'show', '--project', s.project], s.env, 'stderr');
    expect(res.code).toBe(1);
    expect(res.other).toBe('');
  });
});

describe('guardedWriter()', () => {
  class FakeStream extends EventEmitter {
    written: string[] = [];
    destroyed = false;
    write(text: string): boolean {
      this.written.push(text);
      return true;
    }
  }

  it('drops writes after EPIPE without reporting it', () => {
    const stream = new FakeStream();
    const reports: string[] = [];
    const write = guardedWriter(stream, (m) => reports.push(m));
    write('one\n');
    stream.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    write('two\n');
    expect(stream.written).toEqual(['one\n']);
    expect(reports).toEqual([]);
  });

  it('reports another write error once, then drops output', () => {
    const stream = new FakeStream();
    const reports: string[] = [];
    const write = guardedWriter(stream, (m) => reports.push(m));
    stream.emit('error', Object.assign(new Error('no space left'), { code: 'ENOSPC' }));
    stream.emit('error', Object.assign(new Error('no space left'), { code: 'ENOSPC' }));
    write('lost\n');
    expect(stream.written).toEqual([]);
    expect(reports).toEqual(['rye: cannot write output: no space left\n']);
  });
});

describe('descriptorWriter()', () => {
  /** A stream double that records what it is given. */
  const recorder = (): { stream: OutputStream; got: Buffer[] } => {
    const got: Buffer[] = [];
    const stream = Object.assign(new EventEmitter(), {
      write: (t: string | Uint8Array) => got.push(Buffer.from(t)),
    });
    return { stream, got };
  };

  it('writes text to the descriptor as UTF-8, without building the stream', () => {
    const s = makeTempSpaces();
    const path = join(s.root, 'out.txt');
    const fd = openSync(path, 'w');
    let opened = 0;
    const write = descriptorWriter(fd, () => {
      opened += 1;
      return recorder().stream;
    });
    write('héllo ✓\n');
    write('');
    write('two\n');
    closeSync(fd);
    expect(readFileSync(path, 'utf8')).toBe('héllo ✓\ntwo\n');
    expect(opened).toBe(0);
  });

  it('drops output once the reader is gone (EPIPE), quietly', () => {
    const s = makeTempSpaces();
    const fifo = join(s.root, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    closeSync(reader);
    const { stream, got } = recorder();
    const write = descriptorWriter(fd, () => stream);
    write('lost\n');
    write('lost too\n');
    closeSync(fd);
    expect(got).toEqual([]);
  });

  it('hands the rest to the stream when the descriptor would block (EAGAIN)', () => {
    const s = makeTempSpaces();
    const fifo = join(s.root, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    const { stream, got } = recorder();
    const write = descriptorWriter(fd, () => stream);
    // More than a pipe holds: the descriptor takes what fits, the stream the rest.
    const text = 'x'.repeat(300_000);
    write(text);
    write('after\n');
    const drained = Buffer.alloc(400_000);
    let inPipe = 0;
    for (;;) {
      try {
        const n = readSync(reader, drained, inPipe, drained.length - inPipe, null);
        if (n === 0) break;
        inPipe += n;
      } catch {
        break; // EAGAIN: the pipe is empty
      }
    }
    closeSync(fd);
    closeSync(reader);
    expect(got.length).toBe(2);
    expect(inPipe + (got[0]?.length ?? 0)).toBe(text.length);
    expect(got[1]?.toString()).toBe('after\n');
  });
});

describe('drained()', () => {
  /** A stream that takes `ms` to write each chunk, recording what it has written. */
  const slow = (ms: number): { stream: Writable; written: string[] } => {
    const written: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        setTimeout(() => {
          written.push(chunk.toString());
          done();
        }, ms);
      },
    });
    return { stream, written };
  };

  it('resolves at once for a stream that holds nothing', async () => {
    const { stream } = slow(1000);
    let settled = false;
    void drained(stream).then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(true);
  });

  it('resolves only once what the stream holds is written', async () => {
    const { stream, written } = slow(20);
    stream.write('one');
    stream.write('two');
    await drained(stream);
    expect(written.filter((w) => w !== '')).toEqual(['one', 'two']);
    expect(stream.writableLength).toBe(0);
  });

  it('resolves when the stream fails instead', async () => {
    const stream = new Writable({
      write(_chunk, _encoding, done) {
        setTimeout(() => done(new Error('EIO')), 10);
      },
    });
    stream.on('error', () => undefined);
    stream.write('lost');
    await drained(stream);
    expect(stream.destroyed).toBe(true);
  });
});

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/platform/index.js';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function freshDb() {
  dir = mkdtempSync(join(tmpdir(), 'rye-sqlite-'));
  return openSqlite(join(dir, 'x.db'));
}

describe('openSqlite()', () => {
  it('returns one statement object per SQL text, so none is ever left to the garbage collector', () => {
    const db = freshDb();
    db.exec('CREATE TABLE t (a INTEGER)');
    const insert = db.prepare('INSERT INTO t (a) VALUES (?)');
    expect(db.prepare('INSERT INTO t (a) VALUES (?)')).toBe(insert);
    insert.run(1);
    insert.run(2);
    expect(db.prepare('SELECT a FROM t ORDER BY a').all()).toEqual([{ a: 1 }, { a: 2 }]);
    db.close();
  });

  it('answers pragma() through that cache, with and without `simple`, for reading and setting pragmas', () => {
    const db = freshDb();
    expect(db.pragma('journal_mode = WAL', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys = ON')).toEqual([]);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    expect(db.prepare('PRAGMA journal_mode')).toBe(db.prepare('PRAGMA journal_mode'));
    db.close();
  });
});

/** Every TypeScript file under src/. */
function sources(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('the sources keep better-sqlite3 objects out of the garbage collector (Node 24)', () => {
  const root = join(import.meta.dirname, '../../src');
  const files = sources(root).map((path) => ({
    name: relative(root, path),
    text: readFileSync(path, 'utf8'),
  }));

  it('open every database through openSqlite(): better-sqlite3 is a value import only in platform/sqlite.ts', () => {
    const offenders = files
      .filter((f) => f.name !== join('platform', 'sqlite.ts'))
      .filter((f) => /^import (?!type )[^;]*from 'better-sqlite3'/m.test(f.text))
      .map((f) => f.name);
    expect(offenders).toEqual([]);
  });

  it('never call Statement.iterate(): each call makes a native iterator only the collector could free', () => {
    const offenders = files.filter((f) => /\.iterate\(/.test(f.text)).map((f) => f.name);
    expect(offenders).toEqual([]);
  });
});

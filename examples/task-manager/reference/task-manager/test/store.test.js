import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../server/db/store.js';
import { seed } from '../server/db/seed.js';
import { migrate } from '../server/db/migrate.js';
import { parseTaskInput } from '../server/db/schema.js';

const tempFile = () => join(mkdtempSync(join(tmpdir(), 'tasks-')), 'tasks.json');

test('the store creates, updates, lists by status and removes tasks, persisting each change', () => {
  const file = tempFile();
  const store = openStore(file);
  const a = store.create({ title: 'a' });
  store.create({ title: 'b' });
  store.update(a.id, { status: 'done' });
  assert.deepEqual(
    store.list('done').map((t) => t.title),
    ['a'],
  );
  assert.equal(store.remove(a.id), true);
  assert.equal(store.remove(a.id), false);
  assert.deepEqual(
    openStore(file)
      .list()
      .map((t) => t.title),
    ['b'],
  );
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).version, 1);
});

test('seed fills an empty store once; migrate creates the file at the current version', () => {
  const store = openStore(tempFile());
  assert.equal(seed(store), 3);
  assert.equal(seed(store), 3);
  assert.deepEqual(migrate(tempFile()), { from: 0, to: 1 });
});

test('task input is validated', () => {
  assert.deepEqual(parseTaskInput({ title: ' x ' }), { task: { title: 'x' } });
  assert.ok(parseTaskInput({ title: '' }).problems);
  assert.ok(parseTaskInput({ title: 'x', status: 'later' }).problems);
  assert.ok(parseTaskInput({ title: 'x', owner: 'me' }).problems);
  assert.deepEqual(parseTaskInput({ status: 'done' }, { partial: true }), {
    task: { status: 'done' },
  });
});

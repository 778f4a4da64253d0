import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApi } from '../client/api.js';
import { renderTask } from '../client/app.js';
import { createApp } from '../server/app.js';
import { parseTaskInput } from '../server/db/schema.js';
import { openStore } from '../server/db/store.js';

const tempFile = () => join(mkdtempSync(join(tmpdir(), 'priority-')), 'tasks.json');

test('priority is low, medium or high, on create and on update', () => {
  assert.deepEqual(parseTaskInput({ title: 'x', priority: 'high' }), {
    task: { title: 'x', priority: 'high' },
  });
  assert.deepEqual(parseTaskInput({ priority: 'low' }, { partial: true }), {
    task: { priority: 'low' },
  });
  for (const priority of ['urgent', '', 3, null])
    assert.ok(parseTaskInput({ title: 'x', priority }).problems, String(priority));
});

test('a task gets medium by default, also one stored before priorities existed', () => {
  const file = tempFile();
  writeFileSync(
    file,
    JSON.stringify({ version: 1, nextId: 2, tasks: [{ id: 1, title: 'old', status: 'open' }] }),
  );
  const store = openStore(file);
  assert.equal(store.get(1).priority, 'medium');
  assert.equal(store.create({ title: 'new' }).priority, 'medium');
  assert.equal(store.create({ title: 'hot', priority: 'high' }).priority, 'high');
  assert.deepEqual(
    JSON.parse(readFileSync(file, 'utf8')).tasks.map((t) => t.priority),
    ['medium', 'medium', 'high'],
  );
});

test('the API takes, changes and returns priorities, and refuses unknown ones', async () => {
  const server = createApp(openStore(tempFile())).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const send = (method, path, body) =>
    fetch(`${base}/api/tasks${path}`, { method, body: JSON.stringify(body) });
  try {
    assert.equal((await send('POST', '', { title: 'a', priority: 'high' })).status, 201);
    assert.equal((await send('POST', '', { title: 'b' })).status, 201);
    assert.equal((await send('POST', '', { title: 'c', priority: 'urgent' })).status, 400);
    const patched = await send('PATCH', '/2', { priority: 'low' });
    assert.equal((await patched.json()).task.priority, 'low');
    assert.equal((await send('PATCH', '/2', { priority: 'HIGH' })).status, 400);
    const { tasks } = await (await fetch(`${base}/api/tasks`)).json();
    assert.deepEqual(
      tasks.map((t) => [t.title, t.priority]),
      [
        ['a', 'high'],
        ['b', 'low'],
      ],
    );
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('the client sends the chosen priority and shows each task’s', async () => {
  const bodies = [];
  const fakeFetch = async (url, init) => {
    bodies.push(init.body);
    return { ok: true, status: 200, json: async () => ({ task: { id: 1 } }) };
  };
  const api = createApi('http://x', fakeFetch);
  await api.create('t', 'high');
  await api.setPriority(1, 'low');
  assert.deepEqual(bodies, ['{"title":"t","priority":"high"}', '{"priority":"low"}']);
  assert.match(
    renderTask({ id: 1, title: 't', status: 'open', priority: 'high' }),
    /class="priority priority-high">high</,
  );
  assert.match(renderTask({ id: 2, title: 'u', status: 'open' }), /priority-medium/);
});

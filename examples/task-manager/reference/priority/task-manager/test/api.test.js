import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../server/app.js';
import { openStore } from '../server/db/store.js';

async function withServer(fn) {
  const store = openStore(join(mkdtempSync(join(tmpdir(), 'api-')), 'tasks.json'));
  const server = createApp(store).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    await fn(base);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

const json = async (res) => ({
  status: res.status,
  body: res.status === 204 ? null : await res.json(),
});

test('CRUD over /api/tasks', () =>
  withServer(async (base) => {
    assert.deepEqual(await json(await fetch(`${base}/api/tasks`)), {
      status: 200,
      body: { tasks: [] },
    });
    const created = await json(
      await fetch(`${base}/api/tasks`, {
        method: 'POST',
        body: JSON.stringify({ title: 'Write tests' }),
      }),
    );
    assert.deepEqual(created, {
      status: 201,
      body: { task: { id: 1, title: 'Write tests', status: 'open', priority: 'medium' } },
    });
    const done = await json(
      await fetch(`${base}/api/tasks/1`, {
        method: 'PATCH',
        body: JSON.stringify({ status: 'done' }),
      }),
    );
    assert.equal(done.body.task.status, 'done');
    assert.equal((await json(await fetch(`${base}/api/tasks?status=open`))).body.tasks.length, 0);
    assert.equal((await fetch(`${base}/api/tasks/1`, { method: 'DELETE' })).status, 204);
    assert.equal((await fetch(`${base}/api/tasks/1`)).status, 404);
  }));

test('bad input is a 400, unknown routes a 404', () =>
  withServer(async (base) => {
    assert.equal((await fetch(`${base}/api/tasks`, { method: 'POST', body: '{' })).status, 400);
    assert.equal(
      (await fetch(`${base}/api/tasks`, { method: 'POST', body: '{"title":""}' })).status,
      400,
    );
    assert.equal((await fetch(`${base}/api/tasks?status=later`)).status, 400);
    assert.equal((await fetch(`${base}/api/nope`)).status, 404);
  }));

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createApi } from '../client/api.js';
import { escapeHtml, renderTask } from '../client/app.js';

test('the API client calls the endpoints the server serves', async () => {
  const calls = [];
  const fakeFetch = async (url, init) => {
    calls.push([init.method, url, init.body]);
    return { ok: true, status: 200, json: async () => ({ tasks: [], task: { id: 1 } }) };
  };
  const api = createApi('http://x', fakeFetch);
  await api.list('open');
  await api.create('t');
  await api.complete(1);
  assert.deepEqual(calls, [
    ['GET', 'http://x/api/tasks?status=open', undefined],
    ['POST', 'http://x/api/tasks', '{"title":"t"}'],
    ['PATCH', 'http://x/api/tasks/1', '{"status":"done"}'],
  ]);
});

test('tasks render escaped, with a Done button only while open', () => {
  assert.equal(escapeHtml('<b>&'), '&#60;b&#62;&#38;');
  assert.match(
    renderTask({ id: 1, title: '<x>', status: 'open' }),
    /&#60;x&#62;.*data-action="complete"/,
  );
  assert.doesNotMatch(renderTask({ id: 2, title: 'y', status: 'done' }), /complete/);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

test('server/index.js serves the client and the API on the port it prints', async () => {
  const entry = fileURLToPath(new URL('../server/index.js', import.meta.url));
  const dataFile = join(mkdtempSync(join(tmpdir(), 'int-')), 'tasks.json');
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, PORT: '0', DATA_FILE: dataFile },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const line = await new Promise((resolve) =>
      child.stdout.once('data', (d) => resolve(String(d))),
    );
    const { url } = JSON.parse(line);
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>Task Manager<\/title>/);
    assert.deepEqual(await (await fetch(`${url}api/tasks`)).json(), { tasks: [] });
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
});

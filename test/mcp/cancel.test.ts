import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  connect,
  makeMcpProject,
  processAlive,
  pythonTool,
  until,
  type McpProject,
} from './support.js';

/**
 * `t/tree`: starts a grandchild that waits for the `go` file and then writes
 * the `late` marker, writes both pids, and sleeps a minute.
 */
async function withTreeTool(p: McpProject): Promise<void> {
  p.write(
    '.ai/tools/t/tree.py',
    pythonTool(
      't',
      [
        'import subprocess',
        "waiter = \"import os, sys, time\\nwhile not os.path.exists(sys.argv[1]): time.sleep(0.02)\\nopen(sys.argv[2], 'w').write('late')\\n\"",
        'child = subprocess.Popen([sys.executable, "-c", waiter, params["go"], params["late"]])',
        'open(params["pids"], "w").write(str(os.getpid()) + " " + str(child.pid))',
        'time.sleep(60)',
        'print("{}")',
      ].join('\n'),
    ),
  );
  await p.sign('tool', 't/tree');
}

/** The tool's and its grandchild's pids, once both run. */
async function pidsOf(path: string): Promise<[number, number]> {
  await until(
    () => existsSync(path) && readFileSync(path, 'utf8').includes(' '),
    20_000,
    'the tool tree',
  );
  return readFileSync(path, 'utf8').trim().split(' ').map(Number) as [number, number];
}

describe('cancelling an MCP call kills the tool’s whole process tree', () => {
  it('notifications/cancelled from the SDK client: tool and grandchild gone, the later marker never written', async () => {
    const p = await makeMcpProject();
    await withTreeTool(p);
    const c = await connect(p);
    const paths = {
      pids: join(p.markers, 'pids'),
      go: join(p.markers, 'go'),
      late: join(p.markers, 'late'),
    };
    const controller = new AbortController();
    const call = c.client.callTool(
      { name: 'execute', arguments: { item_type: 'tool', item_id: 't/tree', parameters: paths } },
      undefined,
      { signal: controller.signal },
    );
    const [tool, grandchild] = await pidsOf(paths.pids);
    expect(processAlive(tool) && processAlive(grandchild)).toBe(true);
    controller.abort('the user changed their mind');
    await expect(call).rejects.toThrow();
    await until(() => !processAlive(tool) && !processAlive(grandchild), 10_000, 'the tree to die');
    // Nothing is left to act on the go signal.
    writeFileSync(paths.go, '');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(paths.late)).toBe(false);
    // The server kept serving.
    const after = await c.client.callTool({
      name: 'load',
      arguments: { item_type: 'knowledge', item_id: 'notes/alpha' },
    });
    expect(after.isError).toBeFalsy();
  });

  it('stdin EOF likewise leaves no process of the tree', async () => {
    const p = await makeMcpProject();
    await withTreeTool(p);
    const c = await connect(p);
    const paths = {
      pids: join(p.markers, 'pids'),
      go: join(p.markers, 'go'),
      late: join(p.markers, 'late'),
    };
    void c.client
      .callTool({
        name: 'execute',
        arguments: { item_type: 'tool', item_id: 't/tree', parameters: paths },
      })
      .catch(() => undefined);
    const [tool, grandchild] = await pidsOf(paths.pids);
    await c.client.close();
    await until(() => !processAlive(c.pid), 5_000, 'the server to exit');
    // close() ends stdin first: the server left on EOF, not on the SDK's later SIGTERM.
    expect(c.stderr()).toContain('stopping: stdin closed');
    await until(() => !processAlive(tool) && !processAlive(grandchild), 10_000, 'the tree to die');
    writeFileSync(paths.go, '');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(paths.late)).toBe(false);
  });
});

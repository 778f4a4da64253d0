import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  WRITES_MARKERS,
  connect,
  hostPidsIn,
  makeMcpProject,
  processAlive,
  pythonTool,
  until,
  type McpProject,
} from './support.js';

/**
 * `t/tree`: runs in the folder `dir`, starts a grandchild (there too) that
 * waits for the `go` file and then writes the `late` marker, writes both pids
 * to `pids` there, and sleeps a minute.
 */
async function withTreeTool(p: McpProject): Promise<void> {
  p.write(
    '.ai/tools/t/tree.py',
    pythonTool(
      't',
      [
        'import subprocess',
        'os.makedirs(params["dir"], exist_ok=True)',
        'os.chdir(params["dir"])',
        "waiter = \"import os, sys, time\\nwhile not os.path.exists(sys.argv[1]): time.sleep(0.02)\\nopen(sys.argv[2], 'w').write('late')\\n\"",
        'child = subprocess.Popen([sys.executable, "-c", waiter, params["go"], params["late"]])',
        'open("pids", "w").write(str(os.getpid()) + " " + str(child.pid))',
        'time.sleep(60)',
        'print("{}")',
      ].join('\n'),
      WRITES_MARKERS,
    ),
  );
  await p.sign('tool', 't/tree');
}

/** The tool's and its grandchild's host pids, once both run. */
async function pidsOf(dir: string): Promise<[number, number]> {
  return (await hostPidsIn(dir, 'pids', 2)) as [number, number];
}

describe('cancelling an MCP call kills the tool’s whole process tree', () => {
  it('notifications/cancelled from the SDK client: tool and grandchild gone, the later marker never written', async () => {
    const p = await makeMcpProject();
    await withTreeTool(p);
    const c = await connect(p);
    const paths = {
      dir: join(p.markers, 'tree'),
      go: join(p.markers, 'go'),
      late: join(p.markers, 'late'),
    };
    const controller = new AbortController();
    const call = c.client.callTool(
      { name: 'execute', arguments: { item_type: 'tool', item_id: 't/tree', parameters: paths } },
      undefined,
      { signal: controller.signal },
    );
    const [tool, grandchild] = await pidsOf(paths.dir);
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
      dir: join(p.markers, 'tree'),
      go: join(p.markers, 'go'),
      late: join(p.markers, 'late'),
    };
    void c.client
      .callTool({
        name: 'execute',
        arguments: { item_type: 'tool', item_id: 't/tree', parameters: paths },
      })
      .catch(() => undefined);
    const [tool, grandchild] = await pidsOf(paths.dir);
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

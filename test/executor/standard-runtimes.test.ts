import { chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { execute } from '../../src/executor/index.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';

const header = (category: string, executor: string): string =>
  `__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "${executor}"\n__category__ = "${category}"\n__tool_description__ = "runtime test"`;

const run = (p: ExecProject, toolId: string, params: unknown = {}) =>
  execute({ spaces: p.spaces, toolId, params, env: p.env });

describe('python_function_runtime', () => {
  it('calls a sync execute(params, project_path) and returns its JSON', async () => {
    const p = await makeExecProject();
    p.write(
      '.ai/tools/fn/add.py',
      `${header('fn', 'rye/core/runtimes/python_function_runtime')}\n\ndef execute(params, project_path):\n    print("noise goes to stderr")\n    return {"sum": params["a"] + params["b"], "project": project_path}\n`,
    );
    await p.sign('tool', 'fn/add');
    expect(await run(p, 'fn/add', { a: 2, b: 3 })).toMatchObject({
      status: 'success',
      data: { sum: 5, project: p.project },
    });
  });

  it('awaits an async execute() and reports an exception as a failed call', async () => {
    const p = await makeExecProject();
    p.write(
      '.ai/tools/fn/slow.py',
      `${header('fn', 'rye/core/runtimes/python_function_runtime')}\nimport asyncio\n\nasync def execute(params, project_path):\n    await asyncio.sleep(0.01)\n    if params.get("boom"):\n        raise ValueError("boom")\n    return {"ok": True}\n`,
    );
    await p.sign('tool', 'fn/slow');
    expect(await run(p, 'fn/slow')).toMatchObject({ status: 'success', data: { ok: true } });
    const failed = await run(p, 'fn/slow', { boom: true });
    expect(failed).toMatchObject({ status: 'error', data: { success: false } });
    expect(JSON.stringify(failed.data)).toContain('boom');
  });
});

describe('node_runtime and shell_runtime', () => {
  it('runs a single-file .mjs tool with node', async () => {
    const p = await makeExecProject();
    p.write(
      '.ai/tools/js/hello.mjs',
      `export const __version__ = "1.0.0";\nexport const __tool_type__ = "javascript";\nexport const __executor_id__ = "rye/core/runtimes/node_runtime";\nexport const __category__ = "js";\nexport const __tool_description__ = "hello";\nimport { readParams, respond } from '@rye/runtime';\nrespond({ hello: readParams().name });\n`,
    );
    await p.sign('tool', 'js/hello');
    expect(await run(p, 'js/hello', { name: 'node' })).toMatchObject({
      status: 'success',
      data: { hello: 'node' },
    });
  });

  it('runs a shell tool with its bin/ folder on PATH and its siblings verified', async () => {
    const p = await makeExecProject();
    p.write(
      '.ai/tools/sh/greet.sh',
      `#!/bin/sh\n# __version__ = "1.0.0"\n# __tool_type__ = "shell"\n# __executor_id__ = "rye/core/runtimes/shell_runtime"\n# __category__ = "sh"\n# __tool_description__ = "greet"\nprintf '{"greeting": "%s"}\\n' "$(helper.sh)"\n`,
    );
    p.write('.ai/tools/sh/bin/helper.sh', '#!/bin/sh\necho from-bin\n');
    await p.sign('tool', 'sh/**');
    chmodSync(`${p.project}/.ai/tools/sh/bin/helper.sh`, 0o755);
    expect(await run(p, 'sh/greet')).toMatchObject({
      status: 'success',
      data: { greeting: 'from-bin' },
    });
    p.write('.ai/tools/sh/bin/helper.sh', '#!/bin/sh\necho evil\n');
    // The first run pinned the folder: the lockfile catches the swap first…
    await expect(run(p, 'sh/greet')).rejects.toMatchObject({ code: 'LOCKFILE_MISMATCH' });
    // …and without it, the file's own missing signature does.
    rmSync(join(p.project, '.ai/lockfiles'), { recursive: true });
    await expect(run(p, 'sh/greet')).rejects.toMatchObject({ code: 'INTEGRITY_UNSIGNED' });
  });
});

describe('http_client primitive through a chain', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it('sends the params as the JSON body with the bearer token from the environment', async () => {
    const seen: { auth?: string | undefined; body?: string } = {};
    server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.auth = req.headers.authorization;
        seen.body = body;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ received: JSON.parse(body) as unknown }));
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const p = await makeExecProject();
    p.write(
      '.ai/tools/api/post.yaml',
      `version: "1.0.0"\ntool_type: http\nexecutor_id: rye/core/primitives/http_client\ncategory: api\ndescription: "post to a local service"\nconfig:\n  method: POST\n  url: "http://127.0.0.1:${port}/items"\n  auth:\n    type: bearer\n    token: "\${API_TOKEN}"\nconfig_schema:\n  type: object\n  properties:\n    name: { type: string }\n  required: [name]\n`,
    );
    await p.sign('tool', 'api/post');
    const result = await execute({
      spaces: p.spaces,
      toolId: 'api/post',
      params: { name: 'x' },
      env: { ...p.env, API_TOKEN: 's3cret' },
    });
    expect(result).toMatchObject({
      status: 'success',
      data: { status: 200, body: { received: { name: 'x' } } },
    });
    expect(seen.auth).toBe('Bearer s3cret');
  });
});

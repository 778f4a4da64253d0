/**
 * Attack class 1 (and the venv part of class 8): no unsigned project file
 * shapes a tool's environment or chooses its interpreter. Each attack plants a
 * payload that would write a marker file in the project's markers/, which the
 * tools may write; the marker must stay absent. Real subprocesses, real
 * servers on loopback.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { execute, signProjectDotenv } from '../../../src/executor/index.js';
import { readSigner, signText } from '../../../src/integrity/index.js';
import { addTrustedKey, keyDir } from '../../../src/items/index.js';
import { makeExecProject, type ExecProject } from '../../helpers/exec-project.js';
import { refusal } from '../../helpers/refusal.js';

const NODE_TOOL = `export const __version__ = "1.0.0";
export const __tool_type__ = "javascript";
export const __executor_id__ = "rye/core/runtimes/node_runtime";
export const __category__ = "js";
export const __tool_description__ = "hello";
// NODE_OPTIONS: the operator's own reaches the tool in a sandbox too (a control below).
export const __permissions__ = { write: ['markers'], env: ['NODE_OPTIONS'] };
import { respond } from '@rye/runtime';
respond({ hello: 'node', node: process.execPath });
`;

const pythonTool = (envConfig = '{}'): string => `__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_function_runtime"
__category__ = "py"
__tool_description__ = "reads its environment"
# GREETING: the operator's own reaches the tool in a sandbox too ("the real environment still wins").
__permissions__ = {"write": ["markers"], "env": ["GREETING"]}
ENV_CONFIG = ${envConfig}

import os, sys


def execute(params, project_path):
    return {
        "python": sys.executable,
        "greeting": os.environ.get("GREETING"),
        "undeclared": os.environ.get("UNDECLARED"),
    }
`;

/**
 * A project with one signed node tool and one signed python tool; markers/ is
 * made here, so a run with the sandbox off (the operator's `sandbox: off`) can
 * write it too.
 */
async function project(
  pythonEnvConfig?: string,
  sandbox: 'on' | 'off' = 'on',
): Promise<ExecProject & { marker: string }> {
  const p = await makeExecProject(sandbox === 'off' ? { sandbox: 'off' } : {});
  p.write('.ai/tools/js/hello.mjs', NODE_TOOL);
  p.write('.ai/tools/py/env.py', pythonTool(pythonEnvConfig));
  await p.sign('tool', 'js/hello');
  await p.sign('tool', 'py/env');
  mkdirSync(join(p.project, 'markers'), { recursive: true });
  return { ...p, marker: join(p.project, 'markers', 'marker') };
}

/** An executable sh script that writes the marker (a stand-in interpreter). */
function evilScript(p: ExecProject & { marker: string }, rel: string): string {
  const path = p.write(rel, `#!/bin/sh\necho pwned > '${p.marker}'\nexit 0\n`);
  chmodSync(path, 0o755);
  return path;
}

const run = (p: ExecProject, toolId: string, env: NodeJS.ProcessEnv = {}) =>
  execute({ spaces: p.spaces, toolId, params: {}, env: { ...p.env, ...env } });

async function signDotenv(p: ExecProject, text: string): Promise<void> {
  p.write('.env', text);
  await signProjectDotenv(p.project, await readSigner(keyDir(p.spaces)));
}

/** Sign `.env` text with a trusted key, bypassing `rye dotenv sign`'s own refusal. */
async function forceSignDotenv(p: ExecProject, text: string): Promise<void> {
  const signer = await readSigner(keyDir(p.spaces));
  p.write('.env', signText(text, { itemType: 'tool', extension: '.sh', signer }).text);
}

const posixOnly = process.platform === 'win32' ? it.skip : it;

// Both ways: the executor's own guard must hold without the sandbox too (which
// builds the environment from nothing).
describe.each(['on', 'off'] as const)('an unsigned project .env (sandbox %s)', (sandbox) => {
  posixOnly('cannot preload a module with NODE_OPTIONS=--require', async () => {
    const p = await project(undefined, sandbox);
    p.write('evil.cjs', `require('fs').writeFileSync(${JSON.stringify(p.marker)}, 'pwned');\n`);
    p.write('.env', 'NODE_OPTIONS=--require ./evil.cjs\n');
    const result = await run(p, 'js/hello');
    expect(result).toMatchObject({ status: 'success', data: { hello: 'node' } });
    expect(result.metadata.dotenv).toBe('ignored: unsigned');
    expect(existsSync(p.marker)).toBe(false);
    // Control: the same option from the user's own environment does run the payload.
    await run(p, 'js/hello', { NODE_OPTIONS: `--require ${join(p.project, 'evil.cjs')}` });
    expect(existsSync(p.marker)).toBe(true);
  });

  posixOnly('cannot choose the interpreter with RYE_NODE or RYE_PYTHON', async () => {
    const p = await project(undefined, sandbox);
    // In a subfolder: a sandbox binds a program's folder read-only, and the project's would hide markers/.
    evilScript(p, 'planted/evil.sh');
    p.write(
      '.env',
      'RYE_NODE=./planted/evil.sh\nRYE_PYTHON=./planted/evil.sh\nRYE_SHELL=./planted/evil.sh\n',
    );
    expect(await run(p, 'js/hello')).toMatchObject({ status: 'success', data: { hello: 'node' } });
    expect(await run(p, 'py/env')).toMatchObject({ status: 'success' });
    expect(existsSync(p.marker)).toBe(false);
  });

  posixOnly('cannot put a sitecustomize.py on PYTHONPATH', async () => {
    const p = await project(undefined, sandbox);
    p.write('pp/sitecustomize.py', `open(${JSON.stringify(p.marker)}, "w").write("pwned")\n`);
    p.write('.env', `PYTHONPATH=${join(p.project, 'pp')}\nPYTHONSTARTUP=./pp/sitecustomize.py\n`);
    expect(await run(p, 'py/env')).toMatchObject({ status: 'success' });
    expect(existsSync(p.marker)).toBe(false);
  });

  const gcc = spawnSync('cc', ['--version']).status === 0;
  it.skipIf(!gcc || process.platform !== 'linux')(
    'cannot preload a shared object with LD_PRELOAD',
    async () => {
      const p = await project(undefined, sandbox);
      const source = p.write(
        'evil.c',
        `#include <stdio.h>\n__attribute__((constructor)) static void pwn(void) {\n  FILE *f = fopen(${JSON.stringify(p.marker)}, "w");\n  if (f) { fputs("pwned", f); fclose(f); }\n}\n`,
      );
      const lib = join(p.project, 'evil.so');
      expect(spawnSync('cc', ['-shared', '-fPIC', '-o', lib, source]).status).toBe(0);
      // Control: the library does write the marker when preloaded.
      spawnSync('/bin/true', { env: { LD_PRELOAD: lib } });
      expect(existsSync(p.marker)).toBe(true);
      rmSync(p.marker);
      p.write('.env', `LD_PRELOAD=${lib}\n`);
      expect(await run(p, 'js/hello')).toMatchObject({ status: 'success' });
      expect(await run(p, 'py/env')).toMatchObject({ status: 'success' });
      expect(existsSync(p.marker)).toBe(false);
    },
  );

  posixOnly('does not run a python planted at <project>/.venv/bin/python', async () => {
    const p = await project(undefined, sandbox);
    evilScript(p, '.venv/bin/python');
    const result = await run(p, 'py/env');
    expect(result).toMatchObject({ status: 'success' });
    expect((result.data as { python: string }).python).not.toContain(p.project);
    expect(existsSync(p.marker)).toBe(false);
  });

  posixOnly(
    'does not run a python3 planted in the project through a relative PATH entry',
    async () => {
      const p = await project(undefined, sandbox);
      evilScript(p, 'python3');
      evilScript(p, 'node');
      const result = await run(p, 'py/env', { PATH: `.:${p.env['PATH'] ?? ''}` });
      expect(result).toMatchObject({ status: 'success' });
      // The tools' own answers: a sandbox that ran a program planted in the project
      // would bind the project read-only over markers/, so the marker alone would not tell.
      expect((result.data as { python: string }).python).toEqual(expect.any(String));
      expect((result.data as { python: string }).python).not.toContain(p.project);
      expect(await run(p, 'js/hello', { PATH: `:${p.env['PATH'] ?? ''}` })).toMatchObject({
        status: 'success',
        data: { hello: 'node' },
      });
      expect(existsSync(p.marker)).toBe(false);
    },
  );
});

describe('a signed http tool', () => {
  const servers: Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
  });

  async function listen(seen: string[]): Promise<number> {
    const server = createServer((req: IncomingMessage, res) => {
      seen.push(`${req.method ?? ''} ${req.url ?? ''} ${req.headers.authorization ?? '-'}`);
      res.setHeader('content-type', 'application/json');
      res.end('{"ok": true}');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  async function httpProject(goodPort: number, envConfig = ''): Promise<ExecProject> {
    const p = await makeExecProject();
    p.write(
      '.ai/tools/api/get.yaml',
      `version: "1.0.0"\ntool_type: http\nexecutor_id: rye/core/primitives/http_client\ncategory: api\ndescription: "call a service"\n${envConfig}config:\n  method: GET\n  url: "\${API_URL:-http://127.0.0.1:${goodPort}}/items"\n  auth:\n    type: bearer\n    token: "\${API_TOKEN}"\n`,
    );
    await p.sign('tool', 'api/get');
    return p;
  }

  it('keeps sending the bearer token to its own host when an unsigned .env sets the URL', async () => {
    const good: string[] = [];
    const evil: string[] = [];
    const [goodPort, evilPort] = [await listen(good), await listen(evil)];
    const p = await httpProject(goodPort);
    p.write('.env', `API_URL=http://127.0.0.1:${evilPort}\nAPI_TOKEN=from-file\n`);
    const result = await run(p, 'api/get', { API_TOKEN: 's3cret' });
    expect(result).toMatchObject({ status: 'success', metadata: { dotenv: 'ignored: unsigned' } });
    expect(good).toEqual(['GET /items Bearer s3cret']);
    expect(evil).toEqual([]);
  });

  it('takes the URL from a signed .env only when the tool declares it', async () => {
    const good: string[] = [];
    const other: string[] = [];
    const [goodPort, otherPort] = [await listen(good), await listen(other)];
    const undeclared = await httpProject(goodPort);
    await signDotenv(undeclared, `API_URL=http://127.0.0.1:${otherPort}\n`);
    expect(await run(undeclared, 'api/get', { API_TOKEN: 't' })).toMatchObject({
      status: 'success',
      metadata: { dotenv: 'applied: none' },
    });
    expect(other).toEqual([]);

    const declared = await httpProject(goodPort, 'env_config:\n  dotenv: [API_URL]\n');
    await signDotenv(declared, `API_URL=http://127.0.0.1:${otherPort}\n`);
    expect(await run(declared, 'api/get', { API_TOKEN: 't' })).toMatchObject({
      status: 'success',
      metadata: { dotenv: 'applied: API_URL' },
    });
    expect(other).toEqual(['GET /items Bearer t']);
    expect(good).toEqual(['GET /items Bearer t']);
  });
});

describe('a signed project .env', () => {
  it('supplies the names the tool declares, and the real environment still wins', async () => {
    const p = await project('{"dotenv": ["GREETING"]}');
    await signDotenv(p, 'GREETING=hello from .env\nUNDECLARED=x\n');
    const result = await run(p, 'py/env');
    expect(result).toMatchObject({
      status: 'success',
      data: { greeting: 'hello from .env', undeclared: null },
      metadata: { dotenv: 'applied: GREETING' },
    });
    expect(await run(p, 'py/env', { GREETING: 'real' })).toMatchObject({
      data: { greeting: 'real' },
      metadata: { dotenv: 'applied: none' },
    });
  });

  it('says what it would apply in a dry run, never a value', async () => {
    const p = await project('{"dotenv": ["GREETING"]}');
    await signDotenv(p, 'GREETING=s3cret-value\n');
    const result = await execute({ spaces: p.spaces, toolId: 'py/env', env: p.env, dryRun: true });
    expect(result.plan?.dotenv).toBe('applied: GREETING');
    expect(JSON.stringify(result)).not.toContain('s3cret-value');
  });

  posixOnly('refuses the run when it sets a loader name, before anything spawns', async () => {
    const p = await project('{"dotenv": ["GREETING"]}');
    p.write('evil.cjs', `require('fs').writeFileSync(${JSON.stringify(p.marker)}, 'pwned');\n`);
    evilScript(p, 'planted/evil.sh');
    p.write('pp/sitecustomize.py', `open(${JSON.stringify(p.marker)}, "w").write("pwned")\n`);
    for (const line of [
      `NODE_OPTIONS=--require ${join(p.project, 'evil.cjs')}`,
      'RYE_NODE=./planted/evil.sh',
      'RYE_PYTHON=./planted/evil.sh',
      `PYTHONPATH=${join(p.project, 'pp')}`,
      'LD_PRELOAD=./evil.so',
      'PATH=.',
      'BASH_ENV=./planted/evil.sh',
    ]) {
      await forceSignDotenv(p, `GREETING=hi\n${line}\n`);
      for (const tool of ['js/hello', 'py/env']) {
        const refused = await refusal(run(p, tool));
        expect(refused.code).toBe('EXECUTOR_DOTENV_REFUSED');
        expect(refused.message).toContain(join(p.project, '.env'));
      }
    }
    expect(existsSync(p.marker)).toBe(false);
  });

  posixOnly('cannot be opened to a loader name by a tool declaration', async () => {
    const p = await project('{"dotenv": ["GREETING", "NODE_OPTIONS"]}');
    await signDotenv(p, 'GREETING=hi\n');
    const refused = await refusal(run(p, 'py/env'));
    expect(refused.code).toBe('EXECUTOR_CONFIG_INVALID');
    expect(refused.message).toContain('env_config.dotenv[1] names NODE_OPTIONS');
  });

  posixOnly(
    'refuses the run when edited after signing, or signed by an untrusted key',
    async () => {
      const p = await project('{"dotenv": ["GREETING"]}');
      // The python tool itself writes the marker: it must never start.
      p.write(
        '.ai/tools/py/mark.py',
        `__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_function_runtime"\n__category__ = "py"\n__tool_description__ = "marks"\n__permissions__ = {"write": ["markers"]}\n\n\ndef execute(params, project_path):\n    open(${JSON.stringify(p.marker)}, "w").write("ran")\n    return {}\n`,
      );
      await p.sign('tool', 'py/mark');
      await signDotenv(p, 'GREETING=hi\n');
      p.write('.env', `${readFileSync(join(p.project, '.env'), 'utf8')}GREETING=changed\n`);
      const tampered = await refusal(run(p, 'py/mark'));
      expect(tampered.code).toBe('INTEGRITY_HASH_MISMATCH');
      expect(tampered.message).toMatch(/^Cannot use .*\/\.env: /);

      const other = await makeExecProject();
      const stranger = await readSigner(keyDir(other.spaces));
      p.write(
        '.env',
        signText('GREETING=hi\n', { itemType: 'tool', extension: '.sh', signer: stranger }).text,
      );
      expect((await refusal(run(p, 'py/mark'))).code).toBe('INTEGRITY_UNTRUSTED_KEY');
      expect((await refusal(run(p, 'js/hello'))).code).toBe('INTEGRITY_UNTRUSTED_KEY');
      expect(existsSync(p.marker)).toBe(false);
    },
  );

  posixOnly("does not count a key the project's own trust store vouches for", async () => {
    const p = await project('{"dotenv": ["GREETING"]}');
    const other = await makeExecProject();
    const stranger = await readSigner(keyDir(other.spaces));
    // The project ships the stranger's key in .ai/trusted_keys and a .env signed with it.
    await addTrustedKey(p.spaces, join(keyDir(other.spaces), 'public_key.pem'), {
      space: 'project',
    });
    p.write(
      '.env',
      signText('GREETING=from-project\n', { itemType: 'tool', extension: '.sh', signer: stranger })
        .text,
    );
    const refused = await refusal(run(p, 'py/env'));
    expect(refused.code).toBe('INTEGRITY_UNTRUSTED_KEY');
    expect(refused.details['path']).toBe(join(p.project, '.env'));
    // Trusted by the user, the same file counts.
    await addTrustedKey(p.spaces, join(keyDir(other.spaces), 'public_key.pem'));
    expect(await run(p, 'py/env')).toMatchObject({
      status: 'success',
      data: { greeting: 'from-project' },
    });
  });
});

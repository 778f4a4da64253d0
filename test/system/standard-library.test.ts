import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { loadExplicitTrust, verifyFile, type TrustSet } from '../../src/integrity/index.js';
import { makeTempSpaces } from '../helpers/temp-space.js';

/** The built, signed system space (the vitest global setup runs `npm run build`). */
const BUILT = fileURLToPath(new URL('../../dist/system/.ai', import.meta.url));
const SOURCE = fileURLToPath(new URL('../../system/.ai', import.meta.url));

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

type Doc = Record<string, unknown>;
const readYaml = (path: string): Doc => parse(readFileSync(path, 'utf8')) as Doc;
const toolId = (path: string): string =>
  relative(join(BUILT, 'tools'), path)
    .replace(/\.ya?ml$/, '')
    .split(sep)
    .join('/');

describe('built system space', () => {
  let trust: TrustSet;
  beforeAll(async () => {
    trust = await loadExplicitTrust([join(BUILT, 'trusted_keys')]);
  });

  it('ships the standard runtimes, primitives and runtime libraries', () => {
    const ids = filesUnder(join(BUILT, 'tools')).map((p) => relative(join(BUILT, 'tools'), p));
    expect(ids.map((p) => p.split(sep).join('/'))).toEqual(
      expect.arrayContaining([
        'rye/core/primitives/subprocess.yaml',
        'rye/core/primitives/http_client.yaml',
        'rye/core/runtimes/python_script_runtime.yaml',
        'rye/core/runtimes/python_function_runtime.yaml',
        'rye/core/runtimes/node_runtime.yaml',
        'rye/core/runtimes/shell_runtime.yaml',
        'rye/core/runtimes/lib/python/module_loader.py',
        'rye/core/runtimes/lib/node/register.mjs',
        'rye/core/runtimes/lib/node/hooks.mjs',
        'rye/core/runtimes/lib/node/rye-tool.mjs',
      ]),
    );
  });

  it('every tool file verifies against the build’s trusted key', async () => {
    const files = filesUnder(join(BUILT, 'tools'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const result = await verifyFile(file, 'tool', trust);
      expect({ file, verdict: result.verdict }).toEqual({ file, verdict: 'ok' });
    }
  });

  it('every knowledge entry verifies too', async () => {
    for (const file of filesUnder(join(BUILT, 'knowledge'))) {
      const result = await verifyFile(file, 'knowledge', trust);
      expect({ file, verdict: result.verdict }).toEqual({ file, verdict: 'ok' });
    }
  });

  it('every runtime’s executor_id names an existing primitive whose config_schema its config satisfies', () => {
    const yamls = filesUnder(join(BUILT, 'tools')).filter((p) => /\.ya?ml$/.test(p));
    const runtimes = yamls.filter((p) => readYaml(p)['tool_type'] === 'runtime');
    expect(runtimes.length).toBeGreaterThanOrEqual(4);
    for (const path of runtimes) {
      const doc = readYaml(path);
      const executor = doc['executor_id'];
      expect(typeof executor, toolId(path)).toBe('string');
      const primitive = join(BUILT, 'tools', `${String(executor)}.yaml`);
      expect(existsSync(primitive), `${toolId(path)} → ${String(executor)}`).toBe(true);
      const target = readYaml(primitive);
      expect(target['tool_type']).toBe('primitive');
      expect(target['executor_id']).toBeNull();
      // The runtime's config is one the primitive documents (no unknown keys such as `shell`).
      const validate = new Ajv({ strict: true, allErrors: true }).compile(
        target['config_schema'] as Doc,
      );
      expect(validate(doc['config']), JSON.stringify(validate.errors)).toBe(true);
      const lib = (doc['anchor'] as Doc | undefined)?.['lib'];
      if (typeof lib === 'string') {
        const folder = join(path, '..', lib);
        expect(statSync(folder).isDirectory(), `${toolId(path)} anchor.lib`).toBe(true);
      }
    }
  });
});

describe('python_function_runtime runner', () => {
  /** The inline runner, taken from the source YAML (the `-c` argument). */
  const yaml = readYaml(join(SOURCE, 'tools/rye/core/runtimes/python_function_runtime.yaml'));
  const args = (yaml['config'] as Doc)['args'] as string[];
  const runner = args[1] ?? '';

  function call(toolSource: string, params = '{"n":2}') {
    const s = makeTempSpaces();
    const tool = s.write('tool/tool.py', toolSource, s.root);
    // As the executor runs it: cwd = project, argv = runner args after `-c`.
    s.write('json.py', 'raise SystemExit("the project json.py must not shadow the stdlib")\n');
    const result = spawnSync('python3', ['-c', runner, tool, params, s.project], {
      cwd: s.project,
      encoding: 'utf8',
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    if (result.error) throw result.error;
    return {
      code: result.status,
      stdout: result.stdout,
      stderr: result.stderr,
      project: s.project,
    };
  }

  it('is passed the tool path, params JSON and project path, in that order', () => {
    expect(args.slice(0, 1)).toEqual(['-c']);
    expect(args.slice(2)).toEqual(['{tool_path}', '{params_json}', '{project_path}']);
    expect(runner).not.toMatch(/\$\{|\{(tool_path|params_json|project_path|anchor_path)\}/);
  });

  it('calls execute(params, project_path) and prints the result as JSON; tool prints go to stderr', () => {
    const res = call(`def execute(params, project_path):
    print("chatter")
    return {"double": params["n"] * 2, "project": project_path}
`);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ double: 4, project: res.project });
    expect(res.stderr).toContain('chatter');
  });

  it('awaits an async execute and prints {} for None', () => {
    const res = call(`import asyncio
async def execute(params, project_path):
    await asyncio.sleep(0)
    return None
`);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({});
  });

  it('turns an exception into {"success": false, "error": "Type: message"} and exit 1', () => {
    const res = call(`def execute(params, project_path):
    raise ValueError("bad input")
`);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout)).toEqual({ success: false, error: 'ValueError: bad input' });
  });

  it('exits non-zero with a clear message when the file has no execute()', () => {
    const res = call('VALUE = 1\n');
    expect(res.code).not.toBe(0);
    expect(res.code).not.toBe(null);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(
      /Cannot run .*tool\.py: it defines no execute\(params, project_path\)/,
    );
  });
});

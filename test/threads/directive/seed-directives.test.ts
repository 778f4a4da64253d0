import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseDirectiveProgram, type DirectiveProgram } from '../../../src/items/index.js';
import {
  admitHooks,
  clampLimits,
  interpolate,
  interpolateProgram,
  resolveInputs,
  resolveLimits,
  returnSchemaOf,
  validateReturn,
} from '../../../src/threads/directive/index.js';
import { rye } from '../../helpers/cli.js';
import { makeTempSpaces } from '../../helpers/temp-space.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/seed-directives/', import.meta.url));
const NAMES = [
  'build_and_serve',
  'build_crud_app',
  'implement_feature',
  'run_tests',
  'scaffold_project',
];
/** The seed's example run ("What the User Does"). */
const SEED_INPUTS = {
  name: 'task-manager',
  description: 'CRUD task manager with React frontend, Express API, SQLite database',
  features: 'create tasks, mark complete, delete, filter by status',
};

const signedText: Record<string, string> = {};
const programs: Record<string, DirectiveProgram> = {};
const program = (name: string): DirectiveProgram => programs[name] as DirectiveProgram;

beforeAll(async () => {
  const s = makeTempSpaces();
  cpSync(FIXTURES + 'apps', join(s.project, '.ai', 'directives', 'apps'), { recursive: true });
  expect((await rye(['keys', 'generate'], { env: s.env })).code).toBe(0);
  const inProject = (...args: string[]) => rye([...args, '--project', s.project], { env: s.env });
  const sign = await inProject('sign', 'directive', 'apps/task-manager/*', '--json');
  expect(sign.stderr).toBe('');
  expect(sign.code).toBe(0);
  expect(sign.json<{ summary: unknown }>().summary).toEqual({ signed: 5, failed: 0 });
  const verify = await inProject('verify', 'directive', 'apps/task-manager/*', '--json');
  expect(verify.code).toBe(0);
  const results = verify.json<{ results: { verdict: string; coverage: string }[] }>().results;
  expect(results.map((r) => [r.verdict, r.coverage])).toEqual(NAMES.map(() => ['ok', 'full']));
  for (const name of NAMES) {
    const path = join(s.project, '.ai/directives/apps/task-manager', `${name}.md`);
    signedText[name] = readFileSync(path, 'utf8');
    programs[name] = await parseDirectiveProgram(signedText[name], `${name}.md`);
  }
});

describe("the seed's task-manager directives", () => {
  it('sign, verify with full coverage, and parse with their models, limits and permissions', () => {
    expect(signedText['build_crud_app']).toMatch(/^<!-- rye:signed:\S+ -->\n# Build CRUD App\n/);
    expect(program('build_crud_app')).toMatchObject({
      model: { tier: 'sonnet', id: 'claude-sonnet-4-20250514' },
      limits: { turns: 30, tokens: 80000, spawns: 8, spend: '3.00' },
    });
    expect(program('build_crud_app').permissions.entries).toEqual([
      { verb: 'execute', type: 'tool', value: 'rye.file-system.*' },
      { verb: 'execute', type: 'tool', value: 'rye.core.runtimes.node_runtime' },
      { verb: 'execute', type: 'directive', value: 'apps.task-manager.*' },
      { verb: 'search', type: 'knowledge', value: '*' },
      { verb: 'search', type: 'directive', value: '*' },
      { verb: 'load', type: 'knowledge', value: '*' },
    ]);
    expect(program('scaffold_project')).toMatchObject({
      model: { tier: 'haiku', id: 'claude-3-5-haiku-20241022' },
      limits: { turns: 10, tokens: 8192, spend: '0.50' },
    });
    expect(program('implement_feature').limits).toEqual({
      turns: 15,
      tokens: 30000,
      spend: '1.00',
    });
    expect(program('build_crud_app').process.map((s) => [s.name, s.parallel])).toEqual([
      ['load_patterns', false],
      ['plan', false],
      ['scaffold', false],
      ['wave_1', true],
      ['wave_2', true],
      ['wave_3', false],
      ['test', false],
      ['build', false],
    ]);
    expect(program('build_crud_app').successCriteria).toHaveLength(4);
  });

  it("interpolate the orchestrator with the seed's example inputs", () => {
    const orchestrator = program('build_crud_app');
    const inputs = resolveInputs(orchestrator.inputs, SEED_INPUTS, 'build_crud_app');
    const run = interpolateProgram(orchestrator, inputs);
    const ids = run.process.flatMap((s) => s.actions.map((a) => `${a.verb} ${a.itemId ?? ''}`));
    expect(ids).toEqual([
      'load apps/task-manager/react-patterns',
      'load apps/task-manager/api-design',
      'load apps/task-manager/db-schema',
      'execute rye/file-system/fs_write',
      'execute apps/task-manager/scaffold_project',
      'execute apps/task-manager/implement_feature',
      'execute apps/task-manager/implement_feature',
      'execute apps/task-manager/implement_feature',
      'execute apps/task-manager/implement_feature',
      'execute apps/task-manager/test_runner',
      'execute apps/task-manager/build',
    ]);
    expect(run.process[2]?.actions[0]?.params).toEqual({
      name: 'task-manager',
      description: SEED_INPUTS.description,
    });
    expect(run.process[3]?.actions[0]?.params['plan_path']).toBe(
      '.ai/plans/task-manager/phase_1/plan_db_schema.md',
    );
    // The seed's own prose placeholders ({name} in plan_{name}.md) are not inputs: kept.
    expect(run.process[1]?.description).toContain(
      'Write each plan to .ai/plans/task-manager/phase_1/plan_{name}.md',
    );
    expect(run.outputs?.success).toContain("App 'task-manager' built and running.");
    expect(run.outputs?.failure).toContain('resume_thread thread_id={thread_id}');
    // The whole body, as the prompt renderer will use it: no {input:…} left.
    expect(interpolate(signedText['build_crud_app'] ?? '', inputs)).not.toContain('{input:');
  });

  it('admit the orchestrator hooks with interpolated, valid ids and default result modes', () => {
    const orchestrator = program('build_crud_app');
    const hooks = admitHooks(orchestrator, resolveInputs(orchestrator.inputs, SEED_INPUTS));
    expect(hooks).toEqual([
      {
        index: 0,
        event: 'limit',
        when: 'turns_exceeded',
        resultMode: 'discard',
        action: { kind: 'directive', itemId: 'apps/task-manager/build_and_serve' },
        inputs: { action: 'status_report', name: 'task-manager' },
      },
      {
        index: 1,
        event: 'after_complete',
        resultMode: 'discard',
        action: { kind: 'directive', itemId: 'apps/task-manager/build_and_serve' },
        inputs: { action: 'start_dev', name: 'task-manager' },
      },
    ]);
    // Each hook's inputs are valid inputs of the directive it fires.
    for (const hook of hooks) {
      expect(resolveInputs(program('build_and_serve').inputs, hook.inputs)).toMatchObject({
        name: 'task-manager',
        port: 3000,
      });
    }
  });

  it('give the children valid inputs from the orchestrator steps and clamp their limits', () => {
    const run = interpolateProgram(
      program('build_crud_app'),
      resolveInputs(program('build_crud_app').inputs, SEED_INPUTS),
    );
    const parentLimits = resolveLimits(program('build_crud_app').limits);
    for (const step of run.process) {
      for (const action of step.actions) {
        if (action.itemType !== 'directive') continue;
        const child = program(action.itemId?.split('/').pop() ?? '');
        expect(() => resolveInputs(child.inputs, { ...action.params })).not.toThrow();
        const limits = clampLimits(resolveLimits(child.limits), parentLimits);
        expect(limits.turns).toBeLessThanOrEqual(parentLimits.turns);
        expect(Number(limits.spend)).toBeLessThanOrEqual(Number(parentLimits.spend));
      }
    }
    expect(clampLimits(resolveLimits(program('implement_feature').limits), parentLimits)).toEqual({
      turns: 15,
      tokens: 30000,
      spend: '1.00',
      spawns: 8,
      depth: 5,
      duration_seconds: 1800,
      tool_calls: 200,
    });
  });

  it('derive return schemas from the templates and typed outputs', () => {
    expect(returnSchemaOf(program('build_crud_app'))?.fields).toEqual([]);
    const feature = returnSchemaOf(program('implement_feature'));
    expect(feature?.fields.map((f) => [f.name, f.requiredOn])).toEqual([
      ['commit_hash', ['success']],
      ['failed_must_haves', ['failure']],
    ]);
    if (feature === undefined) throw new Error('no schema');
    expect(validateReturn(feature, { outcome: 'success', commit_hash: 'abc123' })).toEqual([]);
    expect(validateReturn(feature, { outcome: 'success' })).toEqual([
      { field: 'commit_hash', message: 'is required when outcome is success' },
    ]);
    const tests = returnSchemaOf(program('run_tests'));
    expect(tests?.fields.map((f) => [f.name, f.type, f.requiredOn])).toEqual([
      ['passed', 'integer', ['success']],
      ['failed', 'integer', ['success']],
      ['failures', 'array', []],
      ['reason', 'string', ['failure']],
    ]);
  });

  it('run the other children with inputs from the seed and their own defaults', () => {
    const scaffold = program('scaffold_project');
    const inputs = resolveInputs(scaffold.inputs, {
      name: 'task-manager',
      description: SEED_INPUTS.description,
    });
    const run = interpolateProgram(scaffold, inputs);
    expect(run.process[0]?.description).toContain('task-manager/\n');
    expect(run.process[1]?.actions[0]?.itemId).toBe('apps/task-manager/dev_server');
    const tests = program('run_tests');
    const runTests = interpolateProgram(
      tests,
      resolveInputs(tests.inputs, { name: 'task-manager' }),
    );
    expect(runTests.process[0]?.actions[0]?.params).toEqual({ suite: 'all' });
    const serve = program('build_and_serve');
    const hooks = admitHooks(
      serve,
      resolveInputs(serve.inputs, { action: 'start_dev', name: 'task-manager' }),
    );
    expect(hooks).toEqual([
      {
        index: 0,
        event: 'error',
        resultMode: 'discard',
        action: { kind: 'tool', itemId: 'apps/task-manager/dev_server' },
        inputs: { action: 'stop' },
      },
    ]);
  });
});

import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSpaces } from '../../../src/items/index.js';
import {
  authorityOf,
  compileCaps,
  operatorAuthority,
  parseCapability,
  type Authority,
} from '../../../src/capabilities/index.js';
import {
  planDirectiveOperation,
  type DirectivePlan,
} from '../../../src/threads/admission/index.js';
import { rye } from '../../helpers/cli.js';
import { BUILT_SYSTEM } from '../../helpers/exec-project.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/seed-directives/', import.meta.url));
const SEED_INPUTS = {
  name: 'task-manager',
  description: 'CRUD task manager with React frontend, Express API, SQLite database',
  features: 'create tasks, mark complete, delete, filter by status',
};
const CHILD_INPUTS: Record<string, Record<string, string>> = {
  scaffold_project: { name: 'task-manager', description: SEED_INPUTS.description },
  implement_feature: {
    plan_path: '.ai/plans/task-manager/phase_1/plan_db_schema.md',
    name: 'task-manager',
  },
  run_tests: { name: 'task-manager' },
  build_and_serve: { action: 'start_dev', name: 'task-manager' },
};

/** One project for the whole file (makeTempSpaces would remove it after the first test). */
let s: { root: string; project: string; env: NodeJS.ProcessEnv };
let orchestrator: DirectivePlan;
let signWarnings: unknown[];

function plan(id: string, inputs: unknown, authority: Authority): Promise<DirectivePlan> {
  const spaces = resolveSpaces({ project: s.project, env: s.env });
  return planDirectiveOperation({ spaces, env: s.env, authority }, id, inputs);
}

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'rye-seed-plan-'));
  s = {
    root,
    project: join(root, 'project'),
    // The built system space: its signed provider descriptors price the seed's models.
    env: { ...process.env, RYE_USER_SPACE: join(root, 'user'), RYE_SYSTEM_SPACE: BUILT_SYSTEM },
  };
  mkdirSync(join(root, 'user'), { recursive: true });
  cpSync(FIXTURES + 'apps', join(s.project, '.ai', 'directives', 'apps'), { recursive: true });
  expect((await rye(['keys', 'generate'], { env: s.env })).code).toBe(0);
  const sign = await rye(
    ['sign', 'directive', 'apps/task-manager/*', '--project', s.project, '--json'],
    { env: s.env },
  );
  expect(sign.code).toBe(0);
  signWarnings = sign.json<{ warnings: unknown[] }>().warnings;
  orchestrator = await plan('apps/task-manager/build_crud_app', SEED_INPUTS, operatorAuthority());
});

afterAll(() => rmSync(s.root, { recursive: true, force: true }));

describe("the seed's directives as a conformance suite (THREADS.md §3, §15)", () => {
  it('the orchestrator holds exactly its declared set under the operator, in minimal form, and loses nothing', () => {
    expect(orchestrator.capabilities).toEqual([
      'rye.execute.directive.apps/task-manager/*',
      'rye.execute.tool.rye/core/runtimes/node_runtime',
      'rye.execute.tool.rye/file-system/*',
      'rye.load.knowledge.*',
      'rye.search.directive.*',
      'rye.search.knowledge.*',
    ]);
    expect(orchestrator.caps_dropped).toEqual([]);
    expect(orchestrator.limits).toMatchObject({
      turns: 30,
      tokens: 80000,
      spawns: 8,
      spend: '3.00',
    });
    expect(orchestrator.model).toMatchObject({
      provider: 'anthropic',
      model: 'claude-sonnet-4-20250514',
    });
    expect(orchestrator.inputs).toEqual(SEED_INPUTS);
  });

  it('renders the prompt with the inputs interpolated and offers the four tools plus directive_return', () => {
    expect(orchestrator.system_prompt).toContain('`apps/task-manager/build_crud_app`');
    expect(orchestrator.system_prompt).toContain('item_id="apps/task-manager/react-patterns"');
    expect(orchestrator.system_prompt).not.toContain('{input:');
    expect(JSON.parse(orchestrator.first_message)).toEqual({ inputs: SEED_INPUTS });
    expect(orchestrator.tools.map((t) => t.name)).toEqual([
      'rye_execute',
      'rye_search',
      'rye_load',
      'directive_return',
    ]);
    const executeIds = (
      orchestrator.tools[0]?.input_schema['properties'] as Record<string, { enum?: string[] }>
    )['item_id']?.enum;
    // What its grants reach here: the five signed directives, the system's node runtime, the
    // file-system tools' folder (every file with a tool extension is an item, so the package's
    // shared module and package.json are offered too; running them fails its chain) and, since
    // it may start children, the thread tools.
    expect(executeIds).toEqual([
      'apps/task-manager/build_and_serve',
      'apps/task-manager/build_crud_app',
      'apps/task-manager/implement_feature',
      'apps/task-manager/run_tests',
      'apps/task-manager/scaffold_project',
      'rye/agent/threads/cancel_thread',
      'rye/agent/threads/read_transcript',
      'rye/agent/threads/thread_status',
      'rye/agent/threads/wait_threads',
      'rye/core/runtimes/node_runtime',
      'rye/file-system/fs_list',
      'rye/file-system/fs_read',
      'rye/file-system/fs_write',
      'rye/file-system/lib/confine',
      'rye/file-system/package',
    ]);
    expect(orchestrator.worst_case).toMatchObject({ spend_limit_usd: '3.00' });
    // The whole tree: every child's spend debits the orchestrator's account, so its limit bounds all.
    const { spawns, depth } = orchestrator.limits;
    expect(orchestrator.worst_case?.tree).toEqual({
      max_threads: Array.from({ length: depth + 1 }, (_, d) => spawns ** d).reduce((a, b) => a + b),
      worst_usd: '3.00',
    });
  });

  it.each([
    ['scaffold_project', ['rye.execute.tool.rye/bash/*']],
    ['implement_feature', []],
    ['run_tests', []],
    ['build_and_serve', []],
  ])(
    '%s under the orchestrator: the exact intersection, and what it lost in caps_dropped',
    async (child, dropped) => {
      const parent = authorityOf(
        compileCaps(orchestrator.capabilities.map((c) => parseCapability(c))),
        'thread',
      );
      const underParent = await plan(`apps/task-manager/${child}`, CHILD_INPUTS[child], parent);
      const alone = await plan(
        `apps/task-manager/${child}`,
        CHILD_INPUTS[child],
        operatorAuthority(),
      );
      expect(underParent.caps_dropped).toEqual(dropped);
      expect(alone.caps_dropped).toEqual([]);
      // Never wider than either side: every capability it keeps, the parent and the child both hold.
      for (const cap of underParent.capabilities) {
        expect(alone.capabilities.concat(dropped)).toContain(cap);
      }
      expect(underParent.capabilities).toEqual(
        alone.capabilities.filter((c) => !dropped.includes(c)),
      );
    },
  );

  it('rye sign warns, naming the capabilities a child would lose under its orchestrator (and signs anyway)', () => {
    expect(signWarnings).toEqual([
      {
        directive: 'apps/task-manager/build_crud_app',
        child: 'apps/task-manager/scaffold_project',
        caps_lost: ['rye.execute.tool.rye/bash/*'],
        can_execute: true,
        message:
          'child directive apps/task-manager/scaffold_project would lose rye.execute.tool.rye/bash/*: apps/task-manager/build_crud_app does not hold it',
      },
    ]);
  });

  it('a child id with the orchestrator not holding execute on it is refused before anything is read', async () => {
    const narrow = authorityOf(
      compileCaps([parseCapability('rye.execute.directive.apps/other/*')]),
      'caps',
    );
    await expect(
      plan('apps/task-manager/run_tests', CHILD_INPUTS['run_tests'], narrow),
    ).rejects.toMatchObject({
      code: 'CAPABILITY_DENIED',
      details: { required: 'rye.execute.directive.apps/task-manager/run_tests' },
    });
  });
});

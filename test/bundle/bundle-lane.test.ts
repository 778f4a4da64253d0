import { describe, expect, it } from 'vitest';
import {
  includeProblem,
  lanePathProblem,
  manifestScopeProblem,
  type BundleManifest,
} from '../../src/bundle/index.js';
import { pullBundle } from '../../src/registry/index.js';
import { refusal } from '../helpers/refusal.js';
import {
  bundleAnswer,
  clientSpaces,
  makeKey,
  serveIndex,
  serveKey,
  sessionFor,
  snapshot,
  startFakeRegistry,
} from '../registry/client/fixtures.js';

// Running a tool of a manifest out of its lane: bundle-lane-execute.test.ts.

const ITEM_ROOTS = [
  '.ai/directives/apps/todo',
  '.ai/tools/apps/todo',
  '.ai/knowledge/apps/todo',
  '.ai/plans/todo',
  '.ai/lockfiles/apps/todo',
];

describe('includeProblem()', () => {
  it('accepts plain-named project folders', () => {
    for (const include of ['todo', 'apps/todo', 'web/client-v2', 'a1/b.c/d_e']) {
      expect(includeProblem(include), include).toBe(undefined);
    }
  });

  it('refuses dot-paths, dependency and interpreter folders, and names that are not plain', () => {
    const refused: Record<string, RegExp> = {
      '.env': /starts with a dot/,
      '.git': /starts with a dot/,
      '.venv': /starts with a dot/,
      'app/.git': /starts with a dot/,
      '.ai': /inside \.ai\//,
      '.ai/tools/apps/other': /inside \.ai\//,
      node_modules: /dependency or interpreter folder/,
      'app/Node_Modules': /dependency or interpreter folder/,
      venv: /dependency or interpreter folder/,
      'lib/site-packages': /dependency or interpreter folder/,
      __pycache__: /not a plain name/,
      '-rf': /not a plain name/,
      '@scope': /not a plain name/,
      'my app': /not a plain name/,
      '../outside': /"\.\." segment/,
      '/etc': /absolute path/,
    };
    for (const [include, why] of Object.entries(refused)) {
      expect(includeProblem(include), include).toMatch(why);
    }
  });
});

describe('lanePathProblem()', () => {
  const problem = (path: string, includes = ['todo']) =>
    lanePathProblem(path, ITEM_ROOTS, includes);

  it('accepts files strictly below the item folders and the app folders', () => {
    for (const path of [
      '.ai/tools/apps/todo/run.py',
      '.ai/plans/todo/phase/plan.md',
      'todo/src/app.js',
      'todo/node_modules/dep/index.js',
      'todo/node_modules/@scope/pkg/index.js',
    ]) {
      expect(problem(path), path).toBe(undefined);
    }
  });

  it('refuses root files, another item’s or bundle’s folder and prefix look-alikes', () => {
    for (const path of [
      '.env',
      'package.json',
      'tsconfig.json',
      'todo',
      'todo2/src/app.js',
      'apps/todo2/index.js',
      '.ai/tools/apps/todo2/run.py',
      '.ai/tools/apps/other/run.py',
      '.ai/tools/apps/todo',
    ]) {
      expect(problem(path), path).toBe(`it lists ${path}, outside the bundle's folders`);
    }
    expect(lanePathProblem('apps/todo2/x.js', ITEM_ROOTS, ['apps/todo'])).toMatch(/outside/);
  });

  it('refuses dot segments anywhere below the folders', () => {
    for (const path of [
      'todo/.env',
      'todo/.git/hooks/pre-commit',
      'todo/.npmrc',
      'todo/node_modules/.bin/x',
      '.ai/tools/apps/todo/.env',
    ]) {
      expect(problem(path), path).toMatch(/is a dot-path$/);
    }
  });

  it('refuses node_modules outside the app folders', () => {
    for (const folder of ['node_modules', 'Node_Modules', 'NODE_MODULES'])
      expect(problem(`.ai/tools/apps/todo/${folder}/x/index.js`)).toMatch(
        /a node_modules file outside the bundle's app folders/,
      );
    expect(problem('.ai/tools/apps/todo/my_node_modules/x.js')).toBe(undefined);
    expect(problem('.ai/tools/apps/todo/node_modules.js')).toBe(undefined);
  });
});

describe('manifestScopeProblem() and the lane rule', () => {
  const manifest = (paths: string[], includes: string[]): BundleManifest => ({
    bundle: {
      id: 'apps/todo',
      version: '1.0.0',
      createdAt: '2026-02-11T00:00:00Z',
      entrypoint: null,
      description: '',
      includes,
    },
    files: new Map(paths.map((p) => [p, { sha256: 'a'.repeat(64), inlineSigned: false }])),
  });

  it('refuses an include that is a dot-path or node_modules, and a listed .env', () => {
    expect(manifestScopeProblem(manifest([], ['.env']), 'apps/todo')).toMatch(
      /^it declares a bad folder .*starts with a dot/,
    );
    expect(manifestScopeProblem(manifest([], ['node_modules']), 'apps/todo')).toMatch(
      /^it declares a bad folder .*dependency/,
    );
    expect(manifestScopeProblem(manifest(['.env'], ['todo']), 'apps/todo')).toBe(
      "it lists .env, outside the bundle's folders",
    );
    expect(manifestScopeProblem(manifest(['todo/.env'], ['todo']), 'apps/todo')).toMatch(
      /dot-path/,
    );
  });
});

describe('pullBundle() of a bundle out of its lane', () => {
  const registryKey = makeKey();
  const author = makeKey();
  const OWN = {
    '.ai/tools/apps/demo/run.py': 'print(1)\n',
    'demo-app/index.html': '<h1>demo</h1>\n',
  };

  async function pullHostile(files: Record<string, string>, includes = ['demo-app']) {
    const fake = await startFakeRegistry();
    serveKey(fake, registryKey);
    const c = clientSpaces();
    const answer = bundleAnswer({
      registry: registryKey,
      author,
      namespace: 'alice',
      bundleId: 'apps/demo',
      version: '1.0.0',
      files: { ...OWN, ...files },
      includes,
    });
    fake.routes.set('GET /v1/bundles/alice/apps/demo', { json: answer.doc });
    serveIndex(fake, registryKey, [answer.doc]);
    for (const [sha, bytes] of answer.blobs) fake.routes.set(`GET /v1/blobs/${sha}`, { bytes });
    const before = snapshot(c.spaces.project);
    const refused = await refusal(
      pullBundle(sessionFor(c.spaces, fake.url), { ref: 'alice/apps/demo' }),
    );
    expect(snapshot(c.spaces.project), 'the pull wrote files').toEqual(before);
    expect(fake.seen.some((r) => r.startsWith('GET /v1/blobs/'))).toBe(false);
    return refused;
  }

  for (const [name, files, includes] of [
    ['a root .env', { '.env': 'EVIL=1\n' }, undefined],
    ['a root package.json', { 'package.json': '{}\n' }, undefined],
    ['a .git hook in its app folder', { 'demo-app/.git/hooks/pre-commit': 'x\n' }, undefined],
    ['another item’s folder', { '.ai/tools/apps/demo2/run.py': 'x\n' }, undefined],
    ['an app folder named .venv', { '.venv/bin/python': 'x\n' }, ['demo-app', '.venv']],
    ['an app folder named node_modules', { 'node_modules/x/index.js': 'x\n' }, ['node_modules']],
  ] as const) {
    it(`writes nothing for ${name}`, async () => {
      const refused = await pullHostile(files, includes === undefined ? undefined : [...includes]);
      expect(refused.code).toBe('REGISTRY_CONTENT_INVALID');
    });
  }
});

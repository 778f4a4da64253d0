import { signText, type Signer } from '../../src/integrity/index.js';
import type { ItemType } from '../../src/items/index.js';
import { DIRECTIVE, KNOWLEDGE, PYTHON_TOOL } from './items.js';
import type { TempSpaces } from './temp-space.js';

/** A valid 1x1 PNG (real image bytes: not UTF-8, cannot carry an inline signature). */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** The bundle id of the seed's worked example (seed 002, "Bundle Structure"). */
export const TASK_MANAGER_ID = 'apps/task-manager';

/** Project-relative paths of the files the bundle must list, with their inline_signed flag. */
export const TASK_MANAGER_FILES: Readonly<Record<string, boolean>> = {
  '.ai/directives/apps/task-manager/build_crud_app.md': true,
  '.ai/directives/apps/task-manager/implement_feature.md': true,
  '.ai/directives/apps/task-manager/scaffold_project.md': true,
  '.ai/knowledge/apps/task-manager/react-patterns.md': true,
  '.ai/lockfiles/apps/task-manager/dev_server@1.0.0.lock.json': false,
  '.ai/plans/task-manager/phase_1/plan_api_routes.md': false,
  '.ai/plans/task-manager/phase_1/plan_db_schema.md': false,
  '.ai/tools/apps/task-manager/dev_server.py': true,
  '.ai/tools/apps/task-manager/test_runner.py': true,
  'task-manager/client/public/logo.png': false,
  'task-manager/client/src/App.jsx': false,
  'task-manager/client/src/components/TaskList.jsx': false,
  'task-manager/client/src/styles.css': false,
  'task-manager/package.json': false,
};

const category = TASK_MANAGER_ID;

function signed(text: string, itemType: ItemType, extension: string, signer: Signer): string {
  return signText(text, { itemType, extension, signer }).text;
}

/**
 * Write the seed's CRUD task manager into the project: signed directives,
 * tools and knowledge, unsigned plans and lockfile, the app folder, and files
 * that must never be bundled (node_modules, __pycache__, threads).
 */
export function writeTaskManager(spaces: TempSpaces, signer: Signer): void {
  for (const name of ['build_crud_app', 'scaffold_project', 'implement_feature']) {
    spaces.write(
      `.ai/directives/${category}/${name}.md`,
      signed(DIRECTIVE(name, category), 'directive', '.md', signer),
    );
  }
  for (const name of ['dev_server', 'test_runner']) {
    spaces.write(
      `.ai/tools/${category}/${name}.py`,
      signed(PYTHON_TOOL(category), 'tool', '.py', signer),
    );
  }
  spaces.write(
    `.ai/knowledge/${category}/react-patterns.md`,
    signed(KNOWLEDGE('react-patterns'), 'knowledge', '.md', signer),
  );
  spaces.write('.ai/plans/task-manager/phase_1/plan_db_schema.md', '# DB schema\n\n- tasks\n');
  spaces.write(
    '.ai/plans/task-manager/phase_1/plan_api_routes.md',
    '# API routes\n\n- GET /tasks\n',
  );
  spaces.write(
    `.ai/lockfiles/${category}/dev_server@1.0.0.lock.json`,
    JSON.stringify({ lockfile_version: 1, root: { tool_id: `${category}/dev_server` } }),
  );

  spaces.write('task-manager/package.json', '{ "name": "task-manager", "private": true }\n');
  spaces.write(
    'task-manager/client/src/App.jsx',
    'import { TaskList } from "./components/TaskList.jsx";\nexport const App = () => <TaskList />;\n',
  );
  spaces.write(
    'task-manager/client/src/components/TaskList.jsx',
    'export const TaskList = () => <ul className="tasks" />;\n',
  );
  spaces.write('task-manager/client/src/styles.css', '.tasks { margin: 0; }\n');
  spaces.write('task-manager/client/public/logo.png', TINY_PNG);

  // Never bundled: dependencies, bytecode caches, runtime state.
  spaces.write('task-manager/node_modules/x/index.js', 'module.exports = 1;\n');
  spaces.write(`.ai/tools/${category}/__pycache__/dev_server.cpython-312.pyc`, Buffer.from([0, 1]));
  spaces.write('.ai/threads/build_crud_app-1739012630/thread.json', '{}\n');
}

// The bundler (seed 002): create, verify, inspect and list signed bundle
// manifests. It runs the same code as `rye bundle …` — the rye library's
// runBundlerAction — so the tool and the CLI cannot drift apart.
import { fail, projectPath, readParams, respond } from '@rye/runtime';
import { runBundlerAction } from '@rye/core';

export const __version__ = '1.0.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'rye/core/bundler';
// What its sandbox may reach (docs/sandbox.md).
export const __permissions__ = { read: ['.', '.ai/**'], write: ['.ai/bundles/**'] };
export const __tool_description__ = 'Create, verify, inspect and list signed bundle manifests';
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['create', 'verify', 'inspect', 'list'] },
    bundle_id: { type: 'string' },
    version: { type: 'string' },
    entrypoint: { type: 'string', description: 'item_type:item_id, e.g. directive:apps/task-manager/build_crud_app' },
    description: { type: 'string' },
    include: { type: 'array', items: { type: 'string' } },
    exclude: { type: 'array', items: { type: 'string' } },
    include_node_modules: { type: 'boolean', description: "list every file of the app folders' node_modules" },
    force: { type: 'boolean', description: 'create: replace a manifest of the same version that lists other content' },
  },
  required: ['action'],
  additionalProperties: false,
};

try {
  const result = await runBundlerAction(projectPath() ?? process.cwd(), readParams());
  if (result.ok === false) fail(result.message ?? 'bundle check failed', result);
  else respond({ success: true, ...result });
} catch (error) {
  fail(error instanceof Error ? error.message : String(error), { code: error?.code ?? null });
}

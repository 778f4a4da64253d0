// The registry client (seed 002, "Sharing"): push and pull signed items and
// bundles, and search a registry. It runs the same code as `rye registry …` —
// the rye library's runRegistryAction — so the tool and the CLI cannot drift
// apart. The registry URL comes from `registry`, else RYE_REGISTRY_URL; the
// token from RYE_REGISTRY_TOKEN or the user's saved login, never from params.
import { fail, projectPath, readParams, respond } from '@rye/runtime';
import { runRegistryAction } from '@rye/core';

export const __version__ = '1.0.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'rye/core/registry';
// What its sandbox may reach (docs/sandbox.md).
export const __permissions__ = { read: ['.', '.ai/**'], write: ['.', '.ai/**'], network: true, env: ['RYE_REGISTRY_URL'] };
export const __tool_description__ =
  'Push and pull signed items and bundles (verified against the pinned registry key), search a registry';
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['push', 'pull', 'push_bundle', 'pull_bundle', 'search'] },
    item_type: { type: 'string', enum: ['directive', 'tool', 'knowledge'] },
    item_id: {
      type: 'string',
      description: 'push: the local item id; pull: <namespace>/<item_id>',
    },
    bundle_id: {
      type: 'string',
      description: 'push_bundle: the local bundle id; pull_bundle: <namespace>/<bundle_id>',
    },
    version: { type: 'string', description: 'semver; required for push, default latest for pulls' },
    namespace: { type: 'string', description: 'push: namespace (default: your username); search: filter' },
    query: { type: 'string', description: 'search text' },
    kind: { type: 'string', enum: ['item', 'bundle'] },
    limit: { type: 'integer', minimum: 1, maximum: 200 },
    registry: { type: 'string', description: 'registry URL (default: RYE_REGISTRY_URL)' },
    force: { type: 'boolean', description: 'pulls: replace different files already there' },
    allow_version_mismatch: {
      type: 'boolean',
      description: 'push: publish although the item declares another version than `version`',
    },
  },
  required: ['action'],
  additionalProperties: false,
};

try {
  respond({ success: true, ...(await runRegistryAction(projectPath() ?? process.cwd(), readParams())) });
} catch (error) {
  fail(error instanceof Error ? error.message : String(error), { code: error?.code ?? null });
}

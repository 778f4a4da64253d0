// The daemon sandboxes of this project (CONTAINMENT.md §1.9): list them, and
// stop one by the id rye gave when it started (`metadata.daemon_sandbox`, the
// daemon's RYE_SANDBOX_ID). rye keeps their records in the user space, which
// no sandbox sees, so this tool's body runs in rye's process; run as a
// process of its own it can only say so. `rye sandbox list|stop` is the same
// for every project.
import { fail } from '@rye/runtime';

export const __version__ = '1.0.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'rye/core/sandbox';
// Nothing of the project: the records are not in it (docs/sandbox.md).
export const __permissions__ = { read: [] };
export const __tool_description__ = "List this project's daemon sandboxes, or stop one by its id";
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['list', 'stop'] },
    id: { type: 'string', pattern: '^[0-9a-f]{12}$', description: 'stop: the daemon sandbox id' },
  },
  required: ['action'],
  if: { properties: { action: { const: 'stop' } } },
  then: { required: ['id'] },
  additionalProperties: false,
};

fail('rye/core/sandbox/sandboxes runs in rye\'s process only (its records are outside every sandbox): use `rye sandbox list|stop`');

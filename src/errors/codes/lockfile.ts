import type { CodeTable } from './code-table.js';

/** Lockfiles: pinning a tool's files, and checking a run against the pins. */
export const LOCKFILE_CODES = {
  LOCKFILE_NOT_FOUND: {
    class: 'failure',
    hint: '`rye lock list` shows the lockfiles; a tool gets one on its first successful run.',
  },
  LOCKFILE_MISMATCH: {
    class: 'integrity',
    hint: 'The files differ from what the lockfile pins; review the change, then `rye lock update <tool_id>`.',
  },
  LOCKFILE_STALE: {
    class: 'integrity',
    hint: 'An item changed since the lockfile and carries a valid trusted signature (an update or a rollback: signature dates are not authenticated); review it, then `rye lock update <tool_id>`.',
  },
  LOCKFILE_ROLLBACK: {
    class: 'integrity',
    hint: 'A lockfile signed by your key pins a newer version of this tool; to run the older one on purpose, `rye lock remove <tool_id> --version <newer>`.',
  },
  LOCKFILE_MISSING: {
    class: 'integrity',
    hint: 'Frozen mode runs only pinned tools; create the lockfile with `rye lock update <tool_id>` and commit it.',
  },
  LOCKFILE_INVALID: {
    class: 'integrity',
    hint: 'The lockfile is malformed or points outside its space; delete it or `rye lock update <tool_id>`.',
  },
  LOCKFILE_VERSION_UNSUPPORTED: {
    class: 'integrity',
    hint: 'This rye reads lockfile versions 1 and 2.',
  },
} as const satisfies CodeTable;

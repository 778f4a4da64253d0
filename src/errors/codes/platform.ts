import type { CodeTable } from './code-table.js';

/** Platform: reading and writing files, and the caps on untrusted input. */
export const PLATFORM_CODES = {
  FILE_UNREADABLE: {
    class: 'failure',
    hint: 'Check that the path exists and is readable.',
  },
  FILE_WRITE_FAILED: {
    class: 'failure',
    hint: 'Check permissions and free space; nothing was changed.',
  },
  FILE_BINARY: {
    class: 'integrity',
    hint: 'Items are UTF-8 text; binary content cannot carry an inline signature.',
  },
  FILE_TOO_LARGE: {
    class: 'integrity',
    hint: 'The file is over its size cap (8 MiB for an item; the message names the cap).',
  },
  PARSE_UNSAFE_CONTENT: {
    class: 'integrity',
    hint: 'DOCTYPE/entity declarations, YAML alias expansion, deep nesting, duplicate keys and inputs past the token caps are refused in items, manifests and trust files.',
  },
} as const satisfies CodeTable;

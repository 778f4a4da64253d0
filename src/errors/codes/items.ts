import type { CodeTable } from './code-table.js';

/** Items: ids, types, spaces, metadata, permissions and project folders. */
export const ITEM_CODES = {
  ITEM_ID_INVALID: {
    class: 'usage',
    hint: 'Item ids are relative paths without extension, e.g. rye/core/bundler/bundler.',
  },
  ITEM_TYPE_INVALID: {
    class: 'usage',
    hint: 'Item types are directive, tool or knowledge.',
  },
  SPACE_INVALID: {
    class: 'usage',
    hint: 'Spaces are project, user or system.',
  },
  ITEM_ID_RESERVED: {
    class: 'usage',
    hint: 'Ids under rye/ belong to the standard library in system space: they never resolve from, publish to or pull into a project or user space.',
  },
  ITEM_NOT_FOUND: {
    class: 'failure',
    hint: 'Item ids resolve project → user → system; check the id and --project.',
  },
  ITEM_AMBIGUOUS: {
    class: 'failure',
    hint: 'Two files share this id with different extensions in one space: remove one.',
  },
  ITEM_UNSUPPORTED_EXTENSION: {
    class: 'failure',
    hint: 'This file extension is not a known item format for that item type.',
  },
  VALIDATION_FAILED: {
    class: 'failure',
    hint: 'Fix every listed issue in the item metadata, then sign again.',
  },
  METADATA_PARSE_FAILED: {
    class: 'failure',
    hint: 'The item metadata could not be parsed without executing anything; fix its syntax.',
  },
  SPACE_READ_ONLY: {
    class: 'failure',
    hint: 'System space is read-only; work in project or user space instead.',
  },
  PERMISSIONS_INVALID: {
    class: 'integrity',
    hint: "The tool's signed permissions are malformed (details.issues has each one with its code); nothing ran. Fix them and sign the tool again (docs/sandbox.md).",
  },
  PROJECT_NOT_FOUND: {
    class: 'usage',
    hint: '--project names an existing project folder (the one holding .ai/); check the path, or create it with `rye init --project DIR`.',
  },
  PROJECT_INIT_CONFLICT: {
    class: 'failure',
    hint: '`rye init` creates only what is missing and never replaces a file or follows a link: move the named path away, then run it again.',
  },
} as const satisfies CodeTable;

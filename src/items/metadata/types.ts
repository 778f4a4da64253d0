/**
 * Metadata read from an item file without executing anything. Values are the
 * raw parsed literals; validation (validate.ts) checks their types and shapes.
 */
import type { DirectiveProgram } from '../directive/types.js';

/** Tool metadata, mapped to standard names from the language's own spelling. */
export interface ToolMetadata {
  readonly kind: 'tool';
  /**
   * True when the file declares `tool_type` or `executor_id`: an entry point. Helper modules and
   * config files are dependencies, signed without tool validation.
   */
  readonly isEntryPoint: boolean;
  /** Standard name → raw value, for every recognised key that is present. */
  readonly fields: Readonly<Partial<Record<ToolField, unknown>>>;
  /** Extra keys found (e.g. YAML `anchor`, `verify_deps`), unvalidated. */
  readonly extra: Readonly<Record<string, unknown>>;
}

export const TOOL_FIELDS = [
  'version',
  'tool_type',
  'executor_id',
  'category',
  'description',
  'config_schema',
  'env_config',
  'config',
  'permissions',
] as const;
export type ToolField = (typeof TOOL_FIELDS)[number];

/** Directive metadata from the `<directive name version>` element. */
export interface DirectiveMetadata {
  readonly kind: 'directive';
  readonly name: string | undefined;
  readonly version: string | undefined;
  readonly description: string | undefined;
  readonly category: string | undefined;
  readonly author: string | undefined;
  /** Other parsed sections (model, limits, permissions, inputs, outputs, process, hooks…). */
  readonly sections: Readonly<Record<string, unknown>>;
  /** The checked program (docs/directives.md), present when the grammar found no issue. */
  readonly program?: DirectiveProgram;
  /** Every grammar issue of the directive parser; absent on hand-built metadata. */
  readonly programIssues?: readonly ValidationIssue[];
}

/** Knowledge metadata from a leading ```yaml fence or a pure YAML file. */
export interface KnowledgeMetadata {
  readonly kind: 'knowledge';
  readonly fields: Readonly<Record<string, unknown>>;
}

export type ItemMetadata = ToolMetadata | DirectiveMetadata | KnowledgeMetadata;

/** One validation problem; validation collects all of them before failing once. */
export interface ValidationIssue {
  readonly field: string;
  readonly message: string;
  /** A stable code for the kind of problem, where one is defined (e.g. PERMISSIONS_PATH_ESCAPES). */
  readonly code?: string;
}

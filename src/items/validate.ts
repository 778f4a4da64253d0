import { RyeError } from '../errors/index.js';
import type { ItemType } from './item-type.js';
import { isSemver } from './semver.js';
import type {
  DirectiveMetadata,
  ItemMetadata,
  KnowledgeMetadata,
  ToolMetadata,
  ValidationIssue,
} from './metadata/types.js';

/** What validation looks at: the item's type, its parsed metadata and its id. */
export interface ValidationInput {
  readonly itemType: ItemType;
  readonly metadata: ItemMetadata;
  /** Path under the type folder without extension, e.g. `apps/task-manager/build`. */
  readonly itemId: string;
}

const SNAKE_CASE = /^[a-z][a-z0-9_]*$/;
/** A file name usable as the last segment of an item id. */
const FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;
const TOOL_OBJECT_FIELDS = ['config_schema', 'env_config', 'config'] as const;

/**
 * Check an item's metadata before it is signed, collecting every issue rather
 * than stopping at the first. Tool files that are not entry points (helper
 * modules, configs) have no metadata rules: they are signed as dependencies.
 * Never throws; an empty array means the item is valid.
 */
export function validateItem(input: ValidationInput): ValidationIssue[] {
  const { itemType, metadata, itemId } = input;
  const slash = itemId.lastIndexOf('/');
  const fileName = itemId.slice(slash + 1);
  const folder = slash < 0 ? '' : itemId.slice(0, slash);
  if (metadata.kind !== itemType) {
    const expected = JSON.stringify(itemType);
    return [issue('kind', 'must match the item type', expected, metadata.kind)];
  }
  switch (metadata.kind) {
    case 'tool':
      return validateTool(metadata, fileName, folder);
    case 'directive':
      return validateDirective(metadata, fileName, folder);
    case 'knowledge':
      return validateKnowledge(metadata, fileName, folder);
  }
}

/**
 * Validate and fail once with every issue.
 *
 * @throws RyeError VALIDATION_FAILED with `details.issues` ({field, message}[]).
 */
export function assertValid(input: ValidationInput): void {
  const issues = validateItem(input);
  if (issues.length === 0) return;
  const list = issues.map((i) => `${i.field}: ${i.message}`).join('; ');
  const count = issues.length === 1 ? '1 issue' : `${issues.length} issues`;
  throw new RyeError(
    'VALIDATION_FAILED',
    `Cannot accept ${input.itemType} ${input.itemId}: ${count}: ${list}`,
    { itemType: input.itemType, itemId: input.itemId, issues },
  );
}

function validateTool(meta: ToolMetadata, fileName: string, folder: string): ValidationIssue[] {
  if (!meta.isEntryPoint) return [];
  const { fields } = meta;
  const issues: ValidationIssue[] = [];
  if (!FILE_NAME.test(fileName)) {
    issues.push(issue('name', 'file name must be letters, digits, _ or -', 'a name', fileName));
  }
  checkEqual(issues, 'category', fields.category, folder, 'must match the folder path');
  checkSemver(issues, fields.version);
  checkText(issues, 'tool_type', fields.tool_type);
  checkText(issues, 'description', fields.description);
  const executor = fields.executor_id;
  if (executor !== null && (typeof executor !== 'string' || executor.trim() === '')) {
    const why = 'must be an item id, or null for a primitive';
    issues.push(issue('executor_id', why, 'an item id or null', executor));
  }
  for (const field of TOOL_OBJECT_FIELDS) {
    const value = fields[field];
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    if (value !== undefined && !isObject) {
      issues.push(issue(field, 'must be an object', 'an object', value));
    }
  }
  return issues;
}

function validateDirective(
  meta: DirectiveMetadata,
  fileName: string,
  folder: string,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (typeof meta.name === 'string' && !SNAKE_CASE.test(meta.name)) {
    issues.push(issue('name', 'must be snake_case', 'a name like build_crud_app', meta.name));
  }
  checkEqual(issues, 'name', meta.name, fileName, 'must match the file name');
  checkSemver(issues, meta.version);
  checkText(issues, 'description', meta.description);
  checkEqual(issues, 'category', meta.category, folder, 'must match the folder path');
  checkText(issues, 'author', meta.author);
  return issues;
}

function validateKnowledge(
  meta: KnowledgeMetadata,
  fileName: string,
  folder: string,
): ValidationIssue[] {
  const { fields } = meta;
  const issues: ValidationIssue[] = [];
  checkEqual(issues, 'name', fields['name'], fileName, 'must match the file name');
  checkText(issues, 'title', fields['title']);
  checkSemver(issues, fields['version']);
  checkText(issues, 'entry_type', fields['entry_type']);
  // Optional for knowledge, but when declared it must agree with the location.
  if (fields['category'] !== undefined) {
    checkEqual(issues, 'category', fields['category'], folder, 'must match the folder path');
  }
  return issues;
}

function checkEqual(
  issues: ValidationIssue[],
  field: string,
  actual: unknown,
  expected: string,
  why: string,
): void {
  if (actual !== expected) issues.push(issue(field, why, JSON.stringify(expected), actual));
}

function checkText(issues: ValidationIssue[], field: string, actual: unknown): void {
  if (typeof actual !== 'string' || actual.trim() === '') {
    issues.push(issue(field, 'must be a non-empty string', 'text', actual));
  }
}

function checkSemver(issues: ValidationIssue[], actual: unknown): void {
  if (!isSemver(actual))
    issues.push(issue('version', 'must be a semantic version', 'like "1.0.0"', actual));
}

function issue(field: string, why: string, expected: string, actual: unknown): ValidationIssue {
  return { field, message: `${field} ${why}: expected ${expected}, got ${show(actual)}` };
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null) return 'null';
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object';
  return `${typeof value} ${String(value)}`;
}

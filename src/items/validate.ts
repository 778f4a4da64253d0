import { RyeError } from '../errors/index.js';
import type { ItemType } from './item-type.js';
import { itemCategory, itemName } from './item-id.js';
import { parsePermissions } from './permissions.js';
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
  const fileName = itemName(itemId);
  const folder = itemCategory(itemId);
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
 * The identity rules alone, as `validateItem` applies them: a declared
 * `category` equals the folder part of the id ('' at the top level) and a
 * declared `name` (directives, knowledge; the tool formats have none) equals
 * its last segment. A tool's category and a directive's are required; a
 * knowledge item's is checked when present. Unlike `validateItem`, a tool need
 * not be an entry point: callers decide when identity matters (the executor
 * checks every chain element, whose signature binds content, not location).
 * Never throws; an empty array means the metadata names this id.
 */
export function identityIssues(metadata: ItemMetadata, itemId: string): ValidationIssue[] {
  const fileName = itemName(itemId);
  const folder = itemCategory(itemId);
  const issues: ValidationIssue[] = [];
  switch (metadata.kind) {
    case 'tool':
      checkCategory(issues, metadata.fields.category, folder);
      break;
    case 'directive':
      checkName(issues, metadata.name, fileName);
      checkCategory(issues, metadata.category, folder);
      break;
    case 'knowledge':
      checkName(issues, metadata.fields['name'], fileName);
      if (metadata.fields['category'] !== undefined)
        checkCategory(issues, metadata.fields['category'], folder);
      break;
  }
  return issues;
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
  checkCategory(issues, fields.category, folder);
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
  issues.push(...parsePermissions(fields.permissions).issues);
  return issues;
}

function validateDirective(
  meta: DirectiveMetadata,
  fileName: string,
  folder: string,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  // Extracted metadata carries the full grammar's verdict (name, version and
  // description included, docs/directives.md); hand-built metadata gets the basic checks.
  const grammar = meta.programIssues;
  if (grammar === undefined && typeof meta.name === 'string' && !SNAKE_CASE.test(meta.name)) {
    issues.push(issue('name', 'must be snake_case', 'a name like build_crud_app', meta.name));
  }
  checkName(issues, meta.name, fileName);
  if (grammar === undefined) {
    checkSemver(issues, meta.version);
    checkText(issues, 'description', meta.description);
  }
  checkCategory(issues, meta.category, folder);
  checkText(issues, 'author', meta.author);
  return grammar === undefined ? issues : [...issues, ...grammar];
}

function validateKnowledge(
  meta: KnowledgeMetadata,
  fileName: string,
  folder: string,
): ValidationIssue[] {
  const { fields } = meta;
  const issues: ValidationIssue[] = [];
  checkName(issues, fields['name'], fileName);
  checkText(issues, 'title', fields['title']);
  checkSemver(issues, fields['version']);
  checkText(issues, 'entry_type', fields['entry_type']);
  // Optional for knowledge, but when declared it must agree with the location.
  if (fields['category'] !== undefined) {
    checkCategory(issues, fields['category'], folder);
  }
  return issues;
}

/** The one category rule: the signed category is where the item lives. */
function checkCategory(issues: ValidationIssue[], actual: unknown, folder: string): void {
  checkEqual(issues, 'category', actual, folder, 'must match the folder path');
}

/** The one name rule: a declared name is the file's name. */
function checkName(issues: ValidationIssue[], actual: unknown, fileName: string): void {
  checkEqual(issues, 'name', actual, fileName, 'must match the file name');
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

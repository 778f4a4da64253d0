import { describe, expect, it } from 'vitest';
import { RyeError } from '../../src/errors/index.js';
import { extractDirectiveMetadata } from '../../src/items/metadata/directive-metadata.js';
import type {
  DirectiveMetadata,
  KnowledgeMetadata,
  ToolMetadata,
  ValidationIssue,
} from '../../src/items/metadata/types.js';
import { assertValid, identityIssues, validateItem } from '../../src/items/validate.js';

const TOOL_FIELDS = {
  version: '1.0.0',
  tool_type: 'python',
  executor_id: 'rye/core/runtimes/node_runtime',
  category: 'apps/task-manager',
  description: 'Run production build via npm run build',
  config_schema: { type: 'object' },
  env_config: { env: { NODE_ENV: 'production' } },
  config: { command: '${RYE_NODE}' },
};

function tool(fields: ToolMetadata['fields'], isEntryPoint = true): ToolMetadata {
  return { kind: 'tool', isEntryPoint, fields, extra: {} };
}

function directive(overrides: Partial<DirectiveMetadata> = {}): DirectiveMetadata {
  return {
    kind: 'directive',
    name: 'build_crud_app',
    version: '1.0.0',
    description: 'Orchestrate full-stack CRUD app creation',
    category: 'apps/task-manager',
    author: 'rye',
    sections: {},
    ...overrides,
  };
}

function knowledge(fields: Record<string, unknown>): KnowledgeMetadata {
  return { kind: 'knowledge', fields };
}

const KNOWLEDGE_FIELDS = {
  name: 'limits-and-safety',
  title: 'Limits and Safety',
  version: '1.0.0',
  entry_type: 'reference',
};

function toolIssues(fields: ToolMetadata['fields'], itemId = 'apps/task-manager/build') {
  return validateItem({ itemType: 'tool', metadata: tool(fields), itemId });
}

function without(fields: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([key]) => !keys.includes(key)));
}

function fieldsOf(issues: ValidationIssue[]): string[] {
  return issues.map((i) => i.field);
}

describe('validateItem() for tools', () => {
  it('accepts a complete entry point, with an item id or null as executor', () => {
    expect(toolIssues(TOOL_FIELDS)).toEqual([]);
    expect(toolIssues({ ...TOOL_FIELDS, executor_id: null })).toEqual([]);
  });

  it('has no rules for files that are not entry points', () => {
    const metadata = tool({}, false);
    expect(validateItem({ itemType: 'tool', metadata, itemId: 'lib/helper' })).toEqual([]);
  });

  it('requires the category to equal the folder path', () => {
    expect(toolIssues({ ...TOOL_FIELDS, category: 'apps/other' })).toEqual([
      {
        field: 'category',
        message:
          'category must match the folder path: expected "apps/task-manager", got "apps/other"',
      },
    ]);
    expect(fieldsOf(toolIssues({ ...TOOL_FIELDS, category: undefined }))).toEqual(['category']);
  });

  it('requires an empty category for a tool at the top level', () => {
    expect(toolIssues({ ...TOOL_FIELDS, category: '' }, 'build')).toEqual([]);
    expect(toolIssues(TOOL_FIELDS, 'build')[0]?.message).toBe(
      'category must match the folder path: expected "", got "apps/task-manager"',
    );
  });

  it.each([['v1.0.0'], ['1.0'], [' 1.0.0'], ['latest'], [1], [undefined]])(
    'rejects version %j',
    (version) => {
      expect(fieldsOf(toolIssues({ ...TOOL_FIELDS, version }))).toEqual(['version']);
    },
  );

  it.each([['0.1.0'], ['2.0.0-beta.1'], ['1.0.0+build.5']])('accepts version %j', (version) => {
    expect(toolIssues({ ...TOOL_FIELDS, version })).toEqual([]);
  });

  it('requires tool_type and description as non-empty strings', () => {
    const issues = toolIssues({ ...TOOL_FIELDS, tool_type: '', description: 42 });
    expect(issues).toEqual([
      {
        field: 'tool_type',
        message: 'tool_type must be a non-empty string: expected text, got ""',
      },
      {
        field: 'description',
        message: 'description must be a non-empty string: expected text, got number 42',
      },
    ]);
  });

  it('requires executor_id to be declared: absent, empty or non-string is an issue', () => {
    for (const executor_id of [undefined, '', 7]) {
      expect(fieldsOf(toolIssues({ ...TOOL_FIELDS, executor_id }))).toEqual(['executor_id']);
    }
    expect(toolIssues(without(TOOL_FIELDS, 'executor_id'))[0]?.message).toBe(
      'executor_id must be an item id, or null for a primitive: expected an item id or null, got nothing',
    );
  });

  it('requires config_schema, env_config and config to be objects when present', () => {
    const issues = toolIssues({ ...TOOL_FIELDS, config_schema: [], env_config: null, config: 'x' });
    expect(fieldsOf(issues)).toEqual(['config_schema', 'env_config', 'config']);
    const bare = without(TOOL_FIELDS, 'config_schema', 'env_config', 'config');
    expect(toolIssues(bare)).toEqual([]);
  });

  it('requires a usable file name', () => {
    expect(fieldsOf(toolIssues(TOOL_FIELDS, 'apps/task-manager/bad name'))).toEqual(['name']);
  });
});

describe('validateItem() for directives', () => {
  const check = (metadata: DirectiveMetadata, itemId = 'apps/task-manager/build_crud_app') =>
    validateItem({ itemType: 'directive', metadata, itemId });

  it('accepts a complete directive', () => {
    expect(check(directive())).toEqual([]);
  });

  it('requires a snake_case name equal to the file name', () => {
    expect(check(directive({ name: 'BuildCrudApp' }))).toEqual([
      {
        field: 'name',
        message: 'name must be snake_case: expected a name like build_crud_app, got "BuildCrudApp"',
      },
      {
        field: 'name',
        message: 'name must match the file name: expected "build_crud_app", got "BuildCrudApp"',
      },
    ]);
    expect(check(directive({ name: 'scaffold' }))[0]?.message).toBe(
      'name must match the file name: expected "build_crud_app", got "scaffold"',
    );
  });

  it('requires version, description, category and author', () => {
    expect(fieldsOf(check(directive({ version: '1' })))).toEqual(['version']);
    expect(fieldsOf(check(directive({ description: ' ' })))).toEqual(['description']);
    expect(fieldsOf(check(directive({ category: 'apps' })))).toEqual(['category']);
    expect(fieldsOf(check(directive({ author: undefined })))).toEqual(['author']);
  });

  it('accepts an empty category for a top-level directive', () => {
    expect(check(directive({ name: 'init', category: '' }), 'init')).toEqual([]);
  });

  it('accepts a parsed directive at its own path', () => {
    const text = `# Build\n\n\`\`\`xml\n<directive name="build_crud_app" version="1.0.0">
  <metadata>
    <description>Orchestrate full-stack CRUD app creation.</description>
    <category>apps/task-manager</category>
    <author>rye</author>
  </metadata>
</directive>\n\`\`\`\n`;
    const metadata = extractDirectiveMetadata(text, 'build_crud_app.md');
    expect(check(metadata)).toEqual([]);
    expect(fieldsOf(check(metadata, 'apps/other/build_crud_app'))).toEqual(['category']);
  });
});

describe('validateItem() for knowledge', () => {
  const check = (fields: Record<string, unknown>, itemId = 'rye/agent/limits-and-safety') =>
    validateItem({ itemType: 'knowledge', metadata: knowledge(fields), itemId });

  it('accepts a complete entry', () => {
    expect(check(KNOWLEDGE_FIELDS)).toEqual([]);
    expect(check({ ...KNOWLEDGE_FIELDS, category: 'rye/agent' })).toEqual([]);
  });

  it('requires the name to equal the file name', () => {
    expect(check({ ...KNOWLEDGE_FIELDS, name: 'limits' })).toEqual([
      {
        field: 'name',
        message: 'name must match the file name: expected "limits-and-safety", got "limits"',
      },
    ]);
  });

  it('requires title, a semver version and entry_type', () => {
    expect(fieldsOf(check({ ...KNOWLEDGE_FIELDS, title: undefined }))).toEqual(['title']);
    expect(fieldsOf(check({ ...KNOWLEDGE_FIELDS, version: 1.0 }))).toEqual(['version']);
    expect(fieldsOf(check({ ...KNOWLEDGE_FIELDS, entry_type: '' }))).toEqual(['entry_type']);
  });

  it('checks a declared category against the folder path', () => {
    expect(fieldsOf(check({ ...KNOWLEDGE_FIELDS, category: 'rye' }))).toEqual(['category']);
  });
});

describe('validateItem() collecting issues', () => {
  it('collects every issue, not just the first', () => {
    expect(fieldsOf(toolIssues({ config: [] }))).toEqual([
      'category',
      'version',
      'tool_type',
      'description',
      'executor_id',
      'config',
    ]);
    const empty = directive({
      name: undefined,
      version: undefined,
      description: undefined,
      category: undefined,
      author: undefined,
    });
    expect(
      fieldsOf(validateItem({ itemType: 'directive', metadata: empty, itemId: 'a/b' })),
    ).toEqual(['name', 'version', 'description', 'category', 'author']);
    const none = validateItem({ itemType: 'knowledge', metadata: knowledge({}), itemId: 'k' });
    expect(fieldsOf(none)).toEqual(['name', 'title', 'version', 'entry_type']);
  });

  it('reports metadata of the wrong kind for the item type', () => {
    const issues = validateItem({ itemType: 'tool', metadata: directive(), itemId: 'x' });
    expect(issues).toEqual([
      {
        field: 'kind',
        message: 'kind must match the item type: expected "tool", got "directive"',
      },
    ]);
  });
});

describe('assertValid()', () => {
  it('returns quietly for a valid item', () => {
    expect(() =>
      assertValid({
        itemType: 'directive',
        metadata: directive(),
        itemId: 'apps/task-manager/build_crud_app',
      }),
    ).not.toThrow();
  });

  it('throws one VALIDATION_FAILED listing every issue', () => {
    const input = { itemType: 'tool', metadata: tool({ version: 'v1' }), itemId: 'a/t' } as const;
    let thrown: unknown;
    try {
      assertValid(input);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RyeError);
    const error = thrown as RyeError;
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details['issues']).toEqual(validateItem(input));
    expect(error.message).toMatch(/^Cannot accept tool a\/t: 5 issues: category: category must/);
    for (const field of ['category', 'version', 'tool_type', 'description', 'executor_id']) {
      expect(error.message).toContain(`${field}: ${field} `);
    }
  });
});

describe('identityIssues()', () => {
  it('checks only where the item says it lives, with the same messages as validation', () => {
    const bad = { ...TOOL_FIELDS, category: 'apps/other', version: 'x', description: '' };
    const issues = identityIssues(tool(bad), 'apps/task-manager/build');
    expect(fieldsOf(issues)).toEqual(['category']);
    expect(issues).toEqual(toolIssues(bad).filter((i) => i.field === 'category'));
  });

  it('checks a tool’s category whether or not it is an entry point', () => {
    const helper = tool({ category: 'lib' }, false);
    expect(validateItem({ itemType: 'tool', metadata: helper, itemId: 'other/helper' })).toEqual(
      [],
    );
    expect(fieldsOf(identityIssues(helper, 'other/helper'))).toEqual(['category']);
  });

  it('checks a directive’s name and category, and a knowledge item’s category only when declared', () => {
    const id = 'apps/task-manager/build_crud_app';
    expect(identityIssues(directive(), id)).toEqual([]);
    expect(fieldsOf(identityIssues(directive({ name: 'other' }), id))).toEqual(['name']);
    expect(fieldsOf(identityIssues(directive({ category: undefined }), id))).toEqual(['category']);
    const k = 'rye/limits-and-safety';
    expect(identityIssues(knowledge(KNOWLEDGE_FIELDS), k)).toEqual([]);
    expect(fieldsOf(identityIssues(knowledge({ ...KNOWLEDGE_FIELDS, category: 'x' }), k))).toEqual([
      'category',
    ]);
  });
});

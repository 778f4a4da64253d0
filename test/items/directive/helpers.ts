import { RyeError } from '../../../src/errors/index.js';
import type { ValidationIssue } from '../../../src/items/index.js';
import { parseDirectiveProgramSync as parseDirectiveProgram } from '../../../src/items/directive/program.js';

/** A directive file around `body`, with valid metadata unless `metadata` replaces it. */
export function directiveText(
  body: string,
  options: { metadata?: string; attrs?: string; preamble?: string } = {},
): string {
  const metadata =
    options.metadata ??
    `<metadata>
    <description>Demo directive.</description>
    <category>demo</category>
    <author>tester</author>
  </metadata>`;
  const attrs = options.attrs ?? 'name="demo" version="1.0.0"';
  return `# Demo\n\n${options.preamble ?? ''}\`\`\`xml\n<directive ${attrs}>\n  ${metadata}\n${body}\n</directive>\n\`\`\`\n`;
}

/** A `<metadata>` element with the given extra children. */
export function metadataWith(extra: string): string {
  return `<metadata>
    <description>Demo directive.</description>
    <category>demo</category>
    <author>tester</author>
    ${extra}
  </metadata>`;
}

/** The RyeError `run` throws; fails when it returns. */
export function errorFrom(run: () => unknown): RyeError {
  try {
    run();
  } catch (error) {
    if (error instanceof RyeError) return error;
    throw error;
  }
  throw new Error('expected a RyeError');
}

/** The issues of a directive the parser refuses with VALIDATION_FAILED. */
export function issuesOf(text: string): ValidationIssue[] {
  const error = errorFrom(() => parseDirectiveProgram(text, 'demo.md'));
  if (error.code !== 'VALIDATION_FAILED') throw error;
  return error.details['issues'] as ValidationIssue[];
}

/** The fields (paths) of those issues. */
export function fieldsOf(text: string): string[] {
  return issuesOf(text).map((i) => i.field);
}

import type { DirectiveProgram } from './types.js';

/**
 * Parse a directive file's text (signature line present or not) into a checked
 * program (docs/directives.md). The XML parser loads on first use, as for
 * metadata, so commands that never read a directive never pay for it.
 *
 * @throws RyeError PARSE_UNSAFE_CONTENT (DOCTYPE, entities, processing
 *   instructions, oversized span, deep nesting), METADATA_PARSE_FAILED (no
 *   `<directive>`, malformed XML, two root `<directive>` elements),
 *   VALIDATION_FAILED with `details.issues` ({field, message}[], every issue).
 */
export async function parseDirectiveProgram(
  text: string,
  source = 'directive',
): Promise<DirectiveProgram> {
  return (await import('./program.js')).parseDirectiveProgramSync(text, source);
}

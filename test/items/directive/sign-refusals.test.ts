import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rye } from '../../helpers/cli.js';
import { makeTempSpaces } from '../../helpers/temp-space.js';

/** A directive named `name` in category `x`, with `metadata` extras and a `body`. */
function directive(name: string, extra: string, body = ''): string {
  return `# ${name}

\`\`\`xml
<directive name="${name}" version="1.0.0">
  <metadata>
    <description>Refusal case ${name}.</description>
    <category>x</category>
    <author>tester</author>
    ${extra}
  </metadata>
  <inputs><input name="app" type="string" required="true">App</input></inputs>
  ${body}
</directive>
\`\`\`
`;
}

/** name → [file text, expected code, expected issue fields (VALIDATION_FAILED only)]. */
const CASES: Record<string, [string, string, string[]]> = {
  doctype: [
    directive('doctype', '<!DOCTYPE directive [<!ELEMENT directive ANY>]>'),
    'PARSE_UNSAFE_CONTENT',
    [],
  ],
  entities: [
    directive(
      'entities',
      '<!DOCTYPE d [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>',
      '<process><step name="s">&lol2;</step></process>',
    ),
    'PARSE_UNSAFE_CONTENT',
    [],
  ],
  two_roots: [
    `${directive('two_roots', '')}\n\`\`\`xml\n<directive name="two_roots" version="9.9.9"><metadata><description>Other</description></metadata></directive>\n\`\`\`\n`,
    'METADATA_PARSE_FAILED',
    [],
  ],
  nested: [
    directive('nested', '', '<directive name="nested" version="2.0.0" />'),
    'VALIDATION_FAILED',
    ['directive'],
  ],
  limits: [
    directive('limits', '<limits max_turns="-5" max_tokens="1.5" max_spawns="1000000" />'),
    'VALIDATION_FAILED',
    ['metadata.limits@max_turns', 'metadata.limits@max_tokens', 'metadata.limits@max_spawns'],
  ],
  unknown_limit: [
    directive('unknown_limit', '<limits max_turn="3" />'),
    'VALIDATION_FAILED',
    ['metadata.limits@max_turn'],
  ],
  verb: [
    directive('verb', '<permissions><write><tool>*</tool></write></permissions>'),
    'VALIDATION_FAILED',
    ['metadata.permissions.write'],
  ],
  hook_event: [
    directive('hook_event', '', '<hooks><hook event="on_done"><tool>x/t</tool></hook></hooks>'),
    'VALIDATION_FAILED',
    ['hooks.hook[0]@event'],
  ],
  hook_when: [
    directive(
      'hook_when',
      '',
      '<hooks><hook event="limit" when="turn_exceeded"><tool>x/t</tool></hook></hooks>',
    ),
    'VALIDATION_FAILED',
    ['hooks.hook[0]@when'],
  ],
  element: [
    directive('element', '<tags>a</tags>', '<context>free</context>'),
    'VALIDATION_FAILED',
    ['context', 'metadata.tags'],
  ],
  reference: [
    directive('reference', '', '<process><step name="s">Build {input:ap}.</step></process>'),
    'VALIDATION_FAILED',
    ['text:12'],
  ],
};

interface SignDoc {
  summary: { signed: number; failed: number };
  signed: { item_id: string }[];
  failed: { item_id: string; code: string; details: { issues?: { field: string }[] } }[];
}

describe('rye sign of an invalid directive', () => {
  it('refuses every case with its code and issue paths, writes nothing, and signs the valid one', async () => {
    const s = makeTempSpaces();
    expect((await rye(['keys', 'generate'], { env: s.env })).code).toBe(0);
    const paths = Object.fromEntries(
      Object.entries(CASES).map(([name, [text]]) => [
        name,
        s.write(`.ai/directives/x/${name}.md`, text),
      ]),
    );
    const valid = directive('valid', '<limits turns="3" />');
    const validPath = s.write('.ai/directives/x/valid.md', valid);

    const res = await rye(['sign', 'directive', 'x/*', '--json', '--project', s.project], {
      env: s.env,
    });
    expect(res.code).toBe(1);
    const doc = res.json<SignDoc>();
    expect(doc.summary).toEqual({ signed: 1, failed: Object.keys(CASES).length });
    expect(doc.signed.map((x) => x.item_id)).toEqual(['x/valid']);
    for (const [name, [text, code, fields]] of Object.entries(CASES)) {
      const failure = doc.failed.find((f) => f.item_id === `x/${name}`);
      expect(failure?.code, name).toBe(code);
      if (code === 'VALIDATION_FAILED') {
        expect(
          failure?.details.issues?.map((i) => i.field),
          name,
        ).toEqual(fields);
      }
      // Nothing written: the refused file is byte for byte what was there.
      expect(readFileSync(paths[name] as string, 'utf8'), name).toBe(text);
    }
    expect(readFileSync(validPath, 'utf8')).toMatch(/^<!-- rye:signed:/);
  });
});

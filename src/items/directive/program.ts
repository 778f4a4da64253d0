/**
 * The directive parser: the `<directive>` element of a directive file to a
 * typed `DirectiveProgram`, or every problem at once. Used at sign time (via
 * metadata extraction) and by load/execute. Untrusted input: the XML goes
 * through the hardened safe-xml layer first (DTD, entities, size, depth).
 */
import { RyeError } from '../../errors/index.js';
import { parseDirectiveXml, type XmlElement } from '../metadata/safe-xml.js';
import type { ValidationIssue } from '../metadata/types.js';
import { isSemver } from '../semver.js';
import { readHooks } from './hooks.js';
import { readInputs } from './inputs.js';
import {
  checkAttributes,
  checkChildren,
  checkNoText,
  childPath,
  firstChild,
  leafText,
  shown,
  Issues,
} from './issues.js';
import { readMetadataSection } from './metadata-section.js';
import { readOutputs } from './outputs.js';
import { forEachToken, malformedSample } from './placeholders.js';
import { readProcess } from './process.js';
import type { DirectiveProgram } from './types.js';

const SNAKE_CASE = /^[a-z][a-z0-9_]{0,63}$/;
const MAX_CRITERIA = 64;

/** The outcome of reading a parsed `<directive>` element. */
export type ProgramReading =
  | { readonly ok: true; readonly program: DirectiveProgram }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

/**
 * Parse a directive file's text (signature line present or not) into a
 * program. Every `{input:x}` in the whole text must name a declared input.
 * Synchronous: importing this module loads the XML parser; the items door
 * exports the lazy `parseDirectiveProgram` instead.
 *
 * @throws RyeError PARSE_UNSAFE_CONTENT (DOCTYPE, entities, processing
 *   instructions, oversized span, deep nesting), METADATA_PARSE_FAILED (no
 *   `<directive>`, malformed XML, two root `<directive>` elements),
 *   VALIDATION_FAILED with `details.issues` ({field, message}[], every issue).
 */
export function parseDirectiveProgramSync(text: string, source = 'directive'): DirectiveProgram {
  const reading = readDirectiveProgram(parseDirectiveXml(text, source), text);
  if (reading.ok) return reading.program;
  const count = reading.issues.length === 1 ? '1 issue' : `${reading.issues.length} issues`;
  const list = reading.issues.map((i) => (i.field === '' ? i.message : `${i.field}: ${i.message}`));
  throw new RyeError(
    'VALIDATION_FAILED',
    `Cannot accept directive ${source}: ${count}: ${list.join('; ')}`,
    { source, issues: reading.issues },
  );
}

/**
 * Check a parsed `<directive>` element against the grammar (docs/directives.md).
 * `text` is the whole file, scanned for `{input:x}` references. Never throws.
 */
export function readDirectiveProgram(root: XmlElement, text: string): ProgramReading {
  const issues = new Issues();
  checkAttributes(root, '', ['name', 'version'], issues);
  checkNoText(root, '', issues);
  checkChildren(
    root,
    '',
    {
      metadata: 'once',
      inputs: 'once',
      process: 'once',
      hooks: 'once',
      success_criteria: 'once',
      outputs: 'once',
    },
    issues,
  );
  const name = root.attributes['name'] ?? '';
  if (!SNAKE_CASE.test(name)) {
    issues.add('@name', `must be a snake_case name like build_crud_app, got "${shown(name)}"`);
  }
  const version = root.attributes['version'] ?? '';
  if (!isSemver(version))
    issues.add('@version', `must be a semantic version like 1.0.0, got "${shown(version)}"`);
  const metadata = readMetadataSection(firstChild(root, 'metadata'), 'metadata', issues);
  const section = <T>(
    tag: string,
    read: (el: XmlElement, path: string, i: Issues) => T,
  ): T | undefined => {
    const el = firstChild(root, tag);
    return el === undefined ? undefined : read(el, tag, issues);
  };
  const inputs = section('inputs', readInputs) ?? [];
  const process = section('process', readProcess) ?? [];
  const hooks = section('hooks', readHooks) ?? [];
  const successCriteria = section('success_criteria', readCriteria) ?? [];
  const outputs = section('outputs', readOutputs);
  checkReferences(text, declaredInputNames(root), issues);
  if (issues.count > 0) return { ok: false, issues: issues.toArray() };
  return {
    ok: true,
    program: {
      name,
      version,
      ...metadata,
      inputs,
      process,
      hooks,
      successCriteria,
      ...(outputs === undefined ? {} : { outputs }),
    },
  };
}

function readCriteria(el: XmlElement, path: string, issues: Issues): string[] {
  checkAttributes(el, path, [], issues);
  checkNoText(el, path, issues);
  checkChildren(el, path, { criterion: 'many' }, issues);
  const list = el.children.filter((c) => c.tag === 'criterion');
  if (list.length === 0) issues.add(path, 'declares no <criterion>');
  if (list.length > MAX_CRITERIA) {
    issues.add(path, `declares ${list.length} criteria (at most ${MAX_CRITERIA})`);
    return [];
  }
  return list.map((criterion, index) => {
    const at = childPath(path, 'criterion', index);
    const text = leafText(criterion, at, issues);
    if (text === '') issues.add(at, 'the criterion is empty');
    return text;
  });
}

/** Names written in `<inputs><input name>`, valid or not (so one bad declaration is one issue). */
function declaredInputNames(root: XmlElement): Set<string> {
  const names = new Set<string>();
  for (const input of firstChild(root, 'inputs')?.children ?? []) {
    const name = input.tag === 'input' ? input.attributes['name'] : undefined;
    if (name !== undefined) names.add(name);
  }
  return names;
}

/** Every `{input:x}` in the text names a declared input; malformed `{input:` is reported. */
function checkReferences(text: string, declared: ReadonlySet<string>, issues: Issues): void {
  const reported = new Set<string>();
  let line = 1;
  let newline = text.indexOf('\n');
  forEachToken(text, (token, start) => {
    if (token.kind === 'placeholder') return;
    while (newline >= 0 && newline < start) {
      line += 1;
      newline = text.indexOf('\n', newline + 1);
    }
    if (token.kind === 'malformed_input') {
      issues.add(
        `text:${line}`,
        () => `"${malformedSample(token)}" is not a placeholder: write {input:name}`,
      );
    } else if (!declared.has(token.name) && !reported.has(token.name)) {
      reported.add(token.name);
      issues.add(`text:${line}`, `{input:${token.name}} names no declared input`);
    }
  });
}

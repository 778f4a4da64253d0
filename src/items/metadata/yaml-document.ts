/**
 * The `yaml` package's parseDocument, driven lexeme by lexeme so untrusted text
 * cannot make it run away: the number of lexemes and the nesting depth are
 * capped while the text is still being tokenised, before the composer's
 * recursion or any conversion to JavaScript runs.
 *
 * The caller hands over the package (its own `import * as yaml from 'yaml'`):
 * this module, exported by the items domain's index, loads nothing, so a
 * command that never reads YAML never loads the library.
 */
import type * as Yaml from 'yaml';
import type { CST, Document, DocumentOptions, ParseOptions, Parser, SchemaOptions } from 'yaml';
import { RyeError } from '../../errors/index.js';

/** The parts of the `yaml` package the capped parser drives. */
export type YamlLibrary = Pick<typeof Yaml, 'Composer' | 'Lexer' | 'Parser' | 'YAMLParseError'>;

export type YamlParseOptions = ParseOptions & DocumentOptions & SchemaOptions;

/** Work limits for one document. */
export interface YamlCaps {
  /**
   * Most lexemes (scalars, indicators, spaces, newlines, comments) read. The
   * library spends a few microseconds per lexeme, so this bounds its time;
   * long scalars are one lexeme each and cost little.
   */
  readonly maxLexemes: number;
  /** Deepest nesting of collections (the CST parser's stack), so recursion stays shallow. */
  readonly maxDepth: number;
}

/**
 * Parse the first YAML document of untrusted `text` exactly as the library's
 * `parseDocument(text, options)` does (a second document is recorded as a
 * MULTIPLE_DOCS error in `doc.errors`; `prettyErrors` is not applied), but
 * refuse the text as soon as it goes over `caps`. Linear in the length of the
 * text, and bounded by `caps.maxLexemes` whatever the length.
 *
 * @throws RyeError PARSE_UNSAFE_CONTENT over a cap (`details: {source, line, reason}`).
 */
export function parseYamlDocumentCapped(
  yaml: YamlLibrary,
  text: string,
  source: string,
  caps: YamlCaps,
  options: YamlParseOptions = {},
): Document.Parsed {
  const lineCounter = options.lineCounter;
  lineCounter?.addNewLine(0);
  const parser = new yaml.Parser(lineCounter?.addNewLine);
  const composer = new yaml.Composer(options);
  let doc: Document.Parsed | undefined;
  for (const next of composer.compose(
    cappedTokens(yaml, parser, text, source, caps),
    true,
    text.length,
  )) {
    if (doc === undefined) doc = next;
    else {
      const message = 'Source contains multiple documents; please use YAML.parseAllDocuments()';
      doc.errors.push(
        new yaml.YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', message),
      );
      break;
    }
  }
  // compose(…, forceDoc = true) always yields at least one document.
  if (doc === undefined) throw new Error('yaml: no document composed');
  return doc;
}

function* cappedTokens(
  yaml: YamlLibrary,
  parser: Parser,
  text: string,
  source: string,
  caps: YamlCaps,
): Generator<CST.Token> {
  let lexemes = 0;
  for (const lexeme of new yaml.Lexer().lex(text)) {
    lexemes += 1;
    if (lexemes > caps.maxLexemes) {
      throw unsafe(source, text, parser.offset, `more than ${caps.maxLexemes} YAML tokens`);
    }
    yield* parser.next(lexeme);
    if (parser.stack.length > caps.maxDepth) {
      const why = `collections nested deeper than ${caps.maxDepth} levels`;
      throw unsafe(source, text, parser.offset, why);
    }
  }
  yield* parser.end();
}

function unsafe(source: string, text: string, offset: number, why: string): RyeError {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return new RyeError(
    'PARSE_UNSAFE_CONTENT',
    `Cannot parse YAML in ${source}: ${why} (line ${line})`,
    {
      source,
      line,
      reason: why,
    },
  );
}

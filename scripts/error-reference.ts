/**
 * The error-code reference (docs/errors.md), rendered from `ERROR_CODES`: the
 * one list of codes, their classes and hints. Pure, so the codes test can
 * check that the committed page is what this renders (`npm run docs:errors`).
 */
import type { ErrorClass, ErrorCode } from '../src/errors/index.js';

interface CodeInfo {
  readonly class: ErrorClass;
  readonly hint: string;
}

const SECTIONS: readonly {
  readonly cls: ErrorClass;
  readonly exit: number;
  readonly title: string;
}[] = [
  { cls: 'usage', exit: 2, title: 'Usage errors' },
  { cls: 'failure', exit: 1, title: 'Operational failures' },
  { cls: 'integrity', exit: 3, title: 'Integrity refusals' },
];

const HEADER = `<!-- Generated from src/errors/codes.ts by \`npm run docs:errors\`: do not edit by hand. -->

# Error codes

Every error rye raises on purpose carries a stable code. Codes are API: they
are listed in one place (\`src/errors/codes.ts\`), never renamed and never
reused. Each code belongs to a class, and the class fixes the CLI's exit code:

| exit | class | meaning |
|---|---|---|
| 0 | | success |
| 1 | failure | the operation failed (a missing item, a registry that did not answer, a tool that reported failure, a bug) |
| 2 | usage | the command line or the parameters are malformed |
| 3 | integrity | a verification or integrity refusal: something is unsigned, changed, untrusted or hostile |

In human mode an error prints as \`error[CODE]: message\`, then each listed issue,
then \`hint:\` and the hint below. With \`--json\` it is one document on stdout,
\`{"ok": false, "error": {"code", "message", "hint", "details"}}\`
([json-output.md](json-output.md)). A command that checks many things (\`rye verify\`
of a glob, \`rye sign\` of many items) exits with the most severe class among its
failures: 3 over 1.
`;

/**
 * Render the reference page for `codes`, in their order within each class.
 * The text is Markdown; hints are escaped so that `<user>`, `NODE_*` or `|`
 * show as written.
 */
export function formatErrorReference(codes: Readonly<Record<string, CodeInfo>>): string {
  const parts = [HEADER];
  for (const { cls, exit, title } of SECTIONS) {
    const rows = Object.entries(codes).filter(([, info]) => info.class === cls);
    parts.push(
      `\n## ${title} (exit ${exit})\n\n| code | what it means, what to do |\n|---|---|\n` +
        rows.map(([code, info]) => `| \`${code}\` | ${escapeMarkdown(info.hint)} |\n`).join(''),
    );
  }
  return parts.join('');
}

/** The codes a rendered page lists, in page order (one table row each). */
export function listedCodes(page: string): ErrorCode[] {
  return [...page.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1] as ErrorCode);
}

/**
 * Markdown-safe text: code spans kept (only `|` escaped inside, for tables);
 * elsewhere the characters Markdown or HTML would act on are escaped.
 */
export function escapeMarkdown(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) =>
      i % 2 === 1 ? part.replace(/\|/g, '\\|') : part.replace(/[\\|*[\]<>]/g, (c) => `\\${c}`),
    )
    .join('');
}

// Issue 10 benchmarks: every parser of untrusted input meets a ~1 MB hostile
// text built to hit its old super-linear path, and must refuse (or read) it in
// linear time. Each line reports the median wall time and the error code seen.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadSpaceTrust, parseManifest, parseTrustToml, resolveSpaces } from '../dist/src/index.js';
import { VerifiedFileCache, execute } from '../dist/src/executor/index.js';
import { extractDirectiveMetadata } from '../dist/src/items/metadata/directive-metadata.js';
import { extractToolMetadata } from '../dist/src/items/metadata/tool-metadata.js';
import { median, report } from './util.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const MB = 1024 * 1024;
const RUNS = 5;

/** `part(0) + part(1) + …` until the text reaches `size` characters. */
function grow(part, size = MB) {
  const parts = [];
  let length = 0;
  for (let i = 0; length < size; i += 1) {
    const next = part(i);
    parts.push(next);
    length += next.length;
  }
  return parts.join('');
}

/** A directive file of about 1 MB: a 240 KB `<directive>` span, then Markdown. */
function directive(inner) {
  const span = `<directive name="d" version="1.0.0">\n<metadata><description>d</description></metadata>\n${inner}\n</directive>`;
  return `# Hostile\n\n\`\`\`xml\n${span}\n\`\`\`\n\n${grow(() => 'Body text.\n', MB - span.length)}`;
}

/** Hostile inputs, each aimed at a path that used to be super-linear (old cost in the comment). */
const CASES = [
  // Quadratic duplicate-key check in `yaml` (uniqueKeys): > 60 s.
  [
    'yaml',
    () =>
      extractToolMetadata(
        grow((i) => `k${i}: 1\n`),
        '.yaml',
        'hostile.yaml',
      ),
  ],
  // Recursion to stack overflow in the composer: ~4.7 s.
  [
    'yaml_nesting',
    () =>
      extractToolMetadata(`${'['.repeat(MB / 2)}${']'.repeat(MB / 2)}`, '.yaml', 'hostile.yaml'),
  ],
  // One scan of all anchors per alias in `yaml`'s toJS: ~55 s.
  [
    'yaml_aliases',
    () =>
      extractToolMetadata(`l:\n${grow((i) => `- &a${i} x\n- *a${i}\n`)}`, '.yaml', 'hostile.yaml'),
  ],
  // One copy of the pattern list per <permissions> grant: ~2.9 s.
  [
    'xml',
    () =>
      extractDirectiveMetadata(
        directive(
          `<permissions><execute>${grow(() => '<tool>a</tool>', 240_000)}</execute></permissions>`,
        ),
        'hostile.md',
      ),
  ],
  // A search to the end of the file per `\N{` in an f-string: ~4.4 s.
  ['python', () => extractToolMetadata(`x = f"""${grow(() => '\\N{')}"""\n`, '.py', 'hostile.py')],
  // JSON.parse of 500,000 nested arrays before the depth check: ~0.4 s.
  [
    'json',
    () =>
      extractToolMetadata(
        `{"a": ${'['.repeat(MB / 2)}${']'.repeat(MB / 2)}}`,
        '.json',
        'hostile.json',
      ),
  ],
  // Tiny tokens through the full YAML parser: ~2.9 s.
  [
    'manifest',
    () =>
      parseManifest(`bundle:\n  id: a/b\nfiles:\n${grow((i) => `  f${i}: 1\n`)}`, 'manifest.yaml'),
  ],
  // Recursion to stack overflow in the composer: ~4.8 s.
  [
    'manifest_nesting',
    () => parseManifest(`${'['.repeat(MB / 2)}${']'.repeat(MB / 2)}`, 'manifest.yaml'),
  ],
  // smol-toml over 1 MB of tables (the readers cap files, the parser did not): ~0.7 s.
  [
    'toml',
    () =>
      parseTrustToml(
        grow((i) => `[t${i}]\n`),
        'hostile.toml',
      ),
  ],
];

function outcome(fn) {
  try {
    fn();
    return 'parsed';
  } catch (error) {
    return error?.code ?? error?.constructor?.name ?? 'thrown';
  }
}

function timeCase(fn) {
  const times = [];
  let seen;
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    seen = outcome(fn);
    times.push(performance.now() - start);
  }
  return { ms: median(times), outcome: seen };
}

/** `rye`'s library execute() on a 1 MB unsigned hostile YAML tool in a temp project. */
async function executeHostileYaml() {
  const work = mkdtempSync(join(tmpdir(), 'rye-bench-parsers-'));
  try {
    const project = join(work, 'project');
    const user = join(work, 'user');
    const system = join(work, 'system');
    cpSync(join(root, 'dist', 'system'), system, { recursive: true });
    mkdirSync(join(user, '.ai'), { recursive: true });
    const tool = join(project, '.ai/tools/bench/hostile.yaml');
    mkdirSync(dirname(tool), { recursive: true });
    writeFileSync(
      tool,
      grow((i) => `k${i}: 1\n`),
    );
    const env = { ...process.env, RYE_USER_SPACE: user, RYE_SYSTEM_SPACE: system };
    const spaces = resolveSpaces({ project, env });
    const trust = (await loadSpaceTrust(spaces)).trust;
    const times = [];
    let seen;
    for (let i = 0; i < RUNS; i += 1) {
      const start = performance.now();
      try {
        const result = await execute({
          spaces,
          toolId: 'bench/hostile',
          env,
          trust,
          cache: new VerifiedFileCache(),
        });
        seen = result.error?.code ?? result.status;
      } catch (error) {
        seen = error?.code ?? 'thrown';
      }
      times.push(performance.now() - start);
    }
    return { ms: median(times), outcome: seen };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export async function run() {
  for (const [format, fn] of CASES) {
    const { ms, outcome: seen } = timeCase(fn);
    report(`parse.hostile_${format}_1mb_ms`, ms, 'ms', { outcome: seen, goal: '< 500 ms' });
  }
  const { ms, outcome: seen } = await executeHostileYaml();
  report('execute.hostile_yaml_1mb_ms', ms, 'ms', { outcome: seen, goal: '< 500 ms' });
}

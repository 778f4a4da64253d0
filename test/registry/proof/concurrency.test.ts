import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signText, verifyText } from '../../../src/integrity/index.js';
import { resolveSpaces } from '../../../src/items/index.js';
import { runRegistryAction } from '../../../src/registry/index.js';
import { KNOWLEDGE } from '../../helpers/items.js';
import { startRegistryProcess, type RegistryProcess } from '../../helpers/registry-server.js';
import { makeAuthor, registryCall, type Author } from './author.js';

const PUSHES = 50;
const PULLS = 500;

let server: RegistryProcess;
let author: Author;
let reader: Author;

beforeAll(async () => {
  // One account pushing 50 at once: lift the per-account upload cap (quota.test.ts covers it).
  server = await startRegistryProcess({ args: ['--max-uploads-per-account', '128'] });
  author = await makeAuthor(server.url, 'busy');
  reader = await makeAuthor(server.url, 'many');
});

afterAll(async () => {
  await server.stop();
  for (const who of [author, reader]) rmSync(who.root, { recursive: true, force: true });
});

const signed = new Map<number, string>();

/** Version i of the note, signed once: distinct content per version. */
function noteText(i: number): string {
  let text = signed.get(i);
  if (text === undefined) {
    const body = KNOWLEDGE('note').replace('version: "1.0.0"', `version: "1.0.${i}"`);
    text = signText(body, { itemType: 'knowledge', extension: '.md', signer: author.signer }).text;
    signed.set(i, text);
  }
  return text;
}

/** A project of the author's holding version i of the note. */
function projectWith(i: number) {
  const project = join(author.root, `p${i}`);
  mkdirSync(join(project, '.ai/knowledge/notes'), { recursive: true });
  writeFileSync(join(project, '.ai/knowledge/notes/note.md'), noteText(i));
  return resolveSpaces({ project, env: author.env });
}

describe('registry under concurrency', () => {
  it(`${PUSHES} parallel pushes of distinct versions each land exactly once; ${PULLS} parallel pulls all verify`, async () => {
    const push = (i: number) =>
      runRegistryAction(
        projectWith(i),
        { action: 'push', item_type: 'knowledge', item_id: 'notes/note', version: `1.0.${i}` },
        { env: author.env },
      );
    const indexes = Array.from({ length: PUSHES }, (_, i) => i);
    const first = await Promise.all(indexes.map(push));
    expect(first.map((r) => r['status'])).toEqual(indexes.map(() => 'created'));

    // A replay of every push changes nothing.
    const again = await Promise.all(indexes.map(push));
    expect(again.map((r) => r['status'])).toEqual(indexes.map(() => 'unchanged'));

    const listed = await registryCall(
      server.url,
      'GET',
      '/v1/versions?kind=item&item_type=knowledge&namespace=busy&item_id=notes/note',
      null,
    );
    const versions = (listed['versions'] as { version: string }[]).map((v) => v.version);
    expect(versions).toHaveLength(PUSHES);
    expect(new Set(versions)).toEqual(new Set(indexes.map((i) => `1.0.${i}`)));

    // Pulls: each into its own fresh project, spread over every version.
    const pulls = Array.from({ length: PULLS }, async (_, n) => {
      const i = n % PUSHES;
      const project = join(reader.root, `pull${n}`);
      mkdirSync(project);
      const result = await runRegistryAction(
        resolveSpaces({ project, env: reader.env }),
        { action: 'pull', item_type: 'knowledge', item_id: 'busy/notes/note', version: `1.0.${i}` },
        { env: reader.env },
      );
      return {
        i,
        result,
        text: readFileSync(join(project, '.ai/knowledge/notes/note.md'), 'utf8'),
      };
    });
    for (const { i, result, text } of await Promise.all(pulls)) {
      expect(result['status']).toBe('written');
      expect(text).toBe(noteText(i));
      const verdict = verifyText(text, {
        itemType: 'knowledge',
        extension: '.md',
        trust: author.trust,
      });
      expect(verdict.verdict).toBe('ok');
    }
  }, 180_000);
});

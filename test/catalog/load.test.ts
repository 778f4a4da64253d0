import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RyeError } from '../../src/errors/index.js';
import { signText, trustSetOf } from '../../src/integrity/index.js';
import { LoadCache, loadItem, type LoadOptions } from '../../src/catalog/index.js';
import {
  editFile,
  knowledgeText,
  makeCatalogProject,
  type CatalogProject,
} from '../helpers/catalog.js';
import { makeSigner } from '../helpers/keys.js';
import { refusal } from '../helpers/refusal.js';
import { VECTORS_DIR } from '../helpers/vectors.js';

const VECTORS = join(VECTORS_DIR, 'synthetic/files/.ai');

const deny = (verb: string, type: string, id: string): never => {
  throw new RyeError('USAGE_INVALID_ARGUMENT', `denied ${verb} ${type} ${id}`, { verb, type, id });
};

function load(
  p: CatalogProject,
  itemType: string,
  itemId: string,
  extra: Partial<LoadOptions> = {},
): ReturnType<typeof loadItem> {
  return loadItem({
    ...p.scope,
    item_type: itemType,
    item_id: itemId,
    visible: () => true,
    deny,
    ...extra,
  });
}

describe('loadItem()', () => {
  it('returns the verified text without its signature line, and the parsed metadata', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/guide', { title: 'The guide', body: 'Use nouns.' });
    const item = await load(p, 'knowledge', 'notes/guide');
    expect(item).toMatchObject({
      item_type: 'knowledge',
      item_id: 'notes/guide',
      space: 'project',
      path: p.itemPath('knowledge', 'notes/guide', '.md'),
      version: '1.0.0',
      verdict: 'ok',
      coverage: 'full',
      metadata: { name: 'guide', title: 'The guide', category: 'notes', version: '1.0.0' },
    });
    expect(item.content).toBe(knowledgeText('guide', 'notes', 'The guide', 'Use nouns.'));
    expect(item.content).not.toContain('rye:signed');
  });

  it('loads tools and directives through their own metadata readers', async () => {
    const p = await makeCatalogProject();
    const tool = await load(p, 'tool', 'rye/core/runtimes/node_runtime');
    expect(tool).toMatchObject({ space: 'system', version: '1.0.0' });
    expect(tool.metadata).toMatchObject({ entry_point: true, tool_type: 'runtime' });
    const directive = p.write(
      '.ai/directives/demo/hello.md',
      '# hello\n\n```xml\n<directive name="hello" version="2.0.0">\n  <metadata>\n    <description>Says hello</description>\n    <category>demo</category>\n    <author>t</author>\n  </metadata>\n</directive>\n```\n',
    );
    writeFileSync(
      directive,
      signText(readFileSync(directive, 'utf8'), {
        itemType: 'directive',
        extension: '.md',
        signer: p.signer,
      }).text,
    );
    const loaded = await load(p, 'directive', 'demo/hello');
    expect(loaded).toMatchObject({ version: '2.0.0', coverage: 'full' });
    expect(loaded.metadata).toMatchObject({ name: 'hello', description: 'Says hello' });
  });

  it('refuses a tampered, an unsigned and an untrusted entry with the verification code', async () => {
    const p = await makeCatalogProject();
    editFile(p.knowledge('v/edited', { body: 'original' }), 'original', 'injected');
    p.knowledge('v/plain', { signed: false });
    p.knowledge('v/stranger', { signer: makeSigner('mallory').signer });
    const tampered = await refusal(load(p, 'knowledge', 'v/edited'));
    expect(tampered.code).toBe('INTEGRITY_HASH_MISMATCH');
    expect(tampered.details).toMatchObject({ verdict: 'hash_mismatch', space: 'project' });
    expect(JSON.stringify(tampered)).not.toContain('injected');
    expect((await refusal(load(p, 'knowledge', 'v/plain'))).code).toBe('INTEGRITY_UNSIGNED');
    expect((await refusal(load(p, 'knowledge', 'v/stranger'))).code).toBe(
      'INTEGRITY_UNTRUSTED_KEY',
    );
  });

  it('refuses an xml-only directive unless allowXmlOnly', async () => {
    const p = await makeCatalogProject();
    const target = p.itemPath('directive', 'demo/demo', '.md');
    mkdirSync(join(target, '..'), { recursive: true });
    copyFileSync(join(VECTORS, 'directives/demo/legacy_span.md'), target);
    p.write(
      'trusted_keys/9d65c1cc10c335a2.toml',
      readFileSync(join(VECTORS, 'trusted_keys/9d65c1cc10c335a2.toml')),
      join(p.user, '.ai'),
    );
    expect((await refusal(load(p, 'directive', 'demo/demo'))).code).toBe(
      'INTEGRITY_PARTIAL_COVERAGE',
    );
    const allowed = await load(p, 'directive', 'demo/demo', { allowXmlOnly: true });
    expect(allowed).toMatchObject({ coverage: 'xml-only', verdict: 'ok' });
    expect(allowed.content).toContain('A preamble the LLM reads.');
  });

  it('refuses a validly signed entry copied over another id', async () => {
    const p = await makeCatalogProject();
    copyFileSync(
      p.knowledge('public/notice', { body: 'harmless' }),
      p.itemPath('knowledge', 'public/other', '.md'),
    );
    const error = await refusal(load(p, 'knowledge', 'public/other'));
    expect(error.code).toBe('LOAD_IDENTITY_MISMATCH');
    expect(error.message).toContain('name must match the file name');
  });

  it('calls deny before resolving anything when visible() refuses', async () => {
    const p = await makeCatalogProject();
    p.knowledge('secret/plan', { body: 'classified' });
    const calls: unknown[] = [];
    const visible = (type: string, id: string): boolean => {
      calls.push([type, id]);
      return !id.startsWith('secret/');
    };
    for (const id of ['secret/plan', 'secret/does-not-exist']) {
      const error = await refusal(load(p, 'knowledge', id, { visible }));
      // The same refusal whether or not the item exists: no existence oracle.
      expect(error).toMatchObject({ code: 'USAGE_INVALID_ARGUMENT', details: { verb: 'load' } });
      expect(JSON.stringify(error)).not.toContain('classified');
    }
    expect(calls).toEqual([
      ['knowledge', 'secret/plan'],
      ['knowledge', 'secret/does-not-exist'],
    ]);
  });

  it('refuses a deny() that returns instead of throwing', async () => {
    const p = await makeCatalogProject();
    p.knowledge('secret/plan');
    const error = await refusal(
      load(p, 'knowledge', 'secret/plan', {
        visible: () => false,
        deny: (() => undefined) as unknown as LoadOptions['deny'],
      }),
    );
    expect(error.code).toBe('INTERNAL_ERROR');
  });

  it('refuses ids that would leave the type folder, before touching the file system', async () => {
    const p = await makeCatalogProject();
    p.write('secret.md', 'top secret\n');
    const asked: string[] = [];
    for (const id of [
      '../secret',
      '../../project/secret',
      'a/../../secret',
      '/etc/passwd',
      'a\\..\\b',
      'C:/x',
      '',
      'a//b',
      'a/./b',
      'a\u0000b',
    ]) {
      const error = await refusal(
        load(p, 'knowledge', id, { visible: (_t, i) => (asked.push(i), true) }),
      );
      expect(error.code, JSON.stringify(id)).toBe('ITEM_ID_INVALID');
    }
    expect(asked).toEqual([]);
  });

  it('never reads through a symbolic link: a linked file is not an item, a linked folder is refused', async () => {
    const p = await makeCatalogProject();
    const outside = join(p.root, 'outside');
    mkdirSync(outside, { recursive: true });
    const secret = p.knowledge('secret', { base: outside, body: 'exfiltrate' });
    const knowledge = join(p.project, '.ai', 'knowledge');
    mkdirSync(knowledge, { recursive: true });
    symlinkSync(secret, join(knowledge, 'linked.md'));
    symlinkSync(join(outside, '.ai', 'knowledge'), join(knowledge, 'public'));
    expect((await refusal(load(p, 'knowledge', 'linked'))).code).toBe('ITEM_NOT_FOUND');
    const escaped = await refusal(load(p, 'knowledge', 'public/secret'));
    expect(escaped.code).toBe('INTEGRITY_SYMLINK_ESCAPE');
    expect(JSON.stringify(escaped)).not.toContain('exfiltrate');
  });

  it('resolves from one space when asked to', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/guide', { body: 'project copy' });
    p.knowledge('notes/guide', { body: 'user copy', base: p.user });
    expect((await load(p, 'knowledge', 'notes/guide')).content).toContain('project copy');
    const user = await load(p, 'knowledge', 'notes/guide', { space: 'user' });
    expect(user).toMatchObject({ space: 'user' });
    expect(user.content).toContain('user copy');
    expect((await refusal(load(p, 'knowledge', 'notes/guide', { space: 'system' }))).code).toBe(
      'ITEM_NOT_FOUND',
    );
    expect((await refusal(load(p, 'knowledge', 'notes/guide', { space: 'disk' }))).code).toBe(
      'SPACE_INVALID',
    );
  });

  it('refuses a reserved id from the project, and loads the system one', async () => {
    const p = await makeCatalogProject();
    p.knowledge('rye/core/impostor');
    expect((await refusal(load(p, 'knowledge', 'rye/core/impostor'))).code).toBe(
      'ITEM_ID_RESERVED',
    );
    p.knowledge('rye/core/runtimes', { body: 'impostor' });
    const real = await load(p, 'knowledge', 'rye/core/runtimes');
    expect(real.space).toBe('system');
    expect(real.content).not.toContain('impostor');
  });

  it('caches a verification, but a cache hit still needs the signer to be trusted', async () => {
    const p = await makeCatalogProject();
    p.knowledge('notes/guide');
    const cache = new LoadCache();
    await load(p, 'knowledge', 'notes/guide', { cache });
    expect(cache.size).toBe(1);
    await load(p, 'knowledge', 'notes/guide', { cache });
    expect(cache.size).toBe(1);
    const error = await refusal(
      load(p, 'knowledge', 'notes/guide', { cache, trust: trustSetOf([]) }),
    );
    expect(error.code).toBe('INTEGRITY_UNTRUSTED_KEY');
  });
});

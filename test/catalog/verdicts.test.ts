import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatTrustToml, parsePublicKey, signText } from '../../src/integrity/index.js';
import { approveProjectTrust } from '../../src/items/index.js';
import {
  closeCatalogDbs,
  listItems,
  searchIndexPath,
  searchItems,
  type SearchResult,
} from '../../src/catalog/index.js';
import {
  editFile,
  knowledgeText,
  makeCatalogProject,
  type CatalogProject,
} from '../helpers/catalog.js';
import { makeSigner } from '../helpers/keys.js';
import { VECTORS_DIR } from '../helpers/vectors.js';

const VECTORS = join(VECTORS_DIR, 'synthetic/files/.ai');

const find = (p: CatalogProject, query: string): Promise<SearchResult[]> =>
  searchItems({ ...p.scope, query, visible: () => true, limit: 100 });

const verdicts = (results: readonly SearchResult[]): Record<string, [string, string | null]> =>
  Object.fromEntries(results.map((r) => [r.item_id, [r.verdict, r.code]]));

/** Trust a key in user space, as `rye trust add` writes it. */
function trustInUser(p: CatalogProject, publicKeyPem: string, owner: string): void {
  const key = parsePublicKey(publicKeyPem);
  const dir = join(p.user, '.ai', 'trusted_keys');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${key.fingerprint}.toml`),
    formatTrustToml({ ...key, owner, attestation: '' }),
  );
}

describe('search verdicts', () => {
  it('shows every item a load would refuse, with the code it would refuse with', async () => {
    const p = await makeCatalogProject();
    p.knowledge('v/good', { body: 'okapi' });
    p.knowledge('v/plain', { body: 'okapi', signed: false });
    editFile(p.knowledge('v/edited', { body: 'okapi' }), 'okapi', 'okapi!');
    p.knowledge('v/stranger', { body: 'okapi', signer: makeSigner('mallory').signer });
    // A validly signed entry (named "original") copied over another id.
    const original = signText(knowledgeText('original', 'v', 'x', 'okapi'), {
      itemType: 'knowledge',
      extension: '.md',
      signer: p.signer,
    });
    writeFileSync(p.itemPath('knowledge', 'v/copied', '.md'), original.text);
    writeFileSync(p.itemPath('knowledge', 'v/binary', '.md'), Buffer.from([0x6f, 0, 0x6b]));
    p.knowledge('v/twin', { body: 'okapi' });
    writeFileSync(p.itemPath('knowledge', 'v/twin', '.yaml'), 'name: twin\n');
    const results = await find(p, 'okapi');
    expect(verdicts(results)).toEqual({
      'v/good': ['ok', null],
      'v/plain': ['unsigned', 'INTEGRITY_UNSIGNED'],
      'v/edited': ['tampered', 'INTEGRITY_HASH_MISMATCH'],
      'v/stranger': ['untrusted', 'INTEGRITY_UNTRUSTED_KEY'],
      'v/copied': ['ok', 'LOAD_IDENTITY_MISMATCH'],
      'v/twin': ['ok', 'ITEM_AMBIGUOUS'],
    });
    const listed = await listItems({ ...p.scope, item_type: 'knowledge' });
    expect(listed.find((i) => i.item_id === 'v/binary')).toMatchObject({
      verdict: 'tampered',
      code: 'FILE_BINARY',
    });
  });

  it('marks an xml-only directive: its signature is good, but a load needs the opt-in', async () => {
    const p = await makeCatalogProject();
    const target = p.itemPath('directive', 'demo/demo', '.md');
    mkdirSync(join(target, '..'), { recursive: true });
    copyFileSync(join(VECTORS, 'directives/demo/legacy_span.md'), target);
    const key = readFileSync(join(VECTORS, 'trusted_keys/9d65c1cc10c335a2.toml'));
    p.write('.ai/trusted_keys/9d65c1cc10c335a2.toml', key);
    expect(verdicts(await find(p, 'preamble'))).toEqual({
      'demo/demo': ['untrusted', 'TRUST_PROJECT_UNAPPROVED'],
    });
    // Approving the project's trust store changes the trust digest: re-verified at once.
    await approveProjectTrust(p.spaces);
    expect(verdicts(await find(p, 'preamble'))).toEqual({
      'demo/demo': ['ok', 'INTEGRITY_PARTIAL_COVERAGE'],
    });
  });

  it('serves a cached verdict on a warm search, and drops it when the trust store changes', async () => {
    const p = await makeCatalogProject();
    const stranger = makeSigner('mallory');
    p.knowledge('v/stranger', { body: 'okapi', signer: stranger.signer });
    expect(verdicts(await find(p, 'okapi'))).toEqual({
      'v/stranger': ['untrusted', 'INTEGRITY_UNTRUSTED_KEY'],
    });
    // Rewrite the cached verdict behind the catalog's back: a warm search that
    // verified anything would not return it.
    closeCatalogDbs();
    const db = new Database(searchIndexPath(p.spaces, p.env));
    db.prepare(
      "UPDATE files SET verdict = 'unsigned', verdict_code = 'INTEGRITY_UNSIGNED' WHERE item_id = 'v/stranger'",
    ).run();
    db.close();
    expect(verdicts(await find(p, 'okapi'))).toEqual({
      'v/stranger': ['unsigned', 'INTEGRITY_UNSIGNED'],
    });
    trustInUser(p, stranger.publicKeyPem, 'mallory');
    expect(verdicts(await find(p, 'okapi'))).toEqual({ 'v/stranger': ['ok', null] });
  });

  it('re-verifies when the bytes change, even with the trust unchanged', async () => {
    const p = await makeCatalogProject();
    const path = p.knowledge('v/entry', { body: 'okapi' });
    expect(verdicts(await find(p, 'okapi'))).toEqual({ 'v/entry': ['ok', null] });
    editFile(path, 'okapi', 'okapi okapi');
    expect(verdicts(await find(p, 'okapi'))).toEqual({
      'v/entry': ['tampered', 'INTEGRITY_HASH_MISMATCH'],
    });
    p.knowledge('v/entry', { body: 'okapi again' });
    expect(verdicts(await find(p, 'okapi'))).toEqual({ 'v/entry': ['ok', null] });
  });
});

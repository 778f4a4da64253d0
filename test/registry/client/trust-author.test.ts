/**
 * A pulled author key is scoped to what was pulled (issue 11, "Keys have
 * scopes"): it keeps the pulled items verifying, and signs nothing else.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatTrustToml, readTrustFile, signText } from '../../../src/integrity/index.js';
import { pullItem } from '../../../src/registry/index.js';
import { rye } from '../../helpers/cli.js';
import { BUILT_SYSTEM } from '../../helpers/exec-project.js';
import { PYTHON_TOOL } from '../../helpers/items.js';
import {
  clientSpaces,
  itemAnswer,
  makeKey,
  serveIndex,
  serveKey,
  sessionFor,
  startFakeRegistry,
  type FakeRegistry,
} from './fixtures.js';

const registryKey = makeKey();
const author = makeKey();

function serveTool(fake: FakeRegistry, itemId: string): void {
  const { doc } = itemAnswer({
    registry: registryKey,
    author,
    itemType: 'tool',
    extension: '.py',
    text: PYTHON_TOOL('utils'),
    namespace: 'alice',
    itemId,
    version: '1.0.0',
  });
  fake.routes.set(`GET /v1/items/tool/alice/${itemId}`, { json: doc });
  serveIndex(fake, registryKey, [doc]);
}

async function setup() {
  const fake = await startFakeRegistry();
  serveKey(fake, registryKey);
  const c = clientSpaces();
  const pull = (itemId: string) =>
    pullItem(sessionFor(c.spaces, fake.url), { itemType: 'tool', ref: `alice/${itemId}` });
  const keyFile = join(c.spaces.project, `.ai/trusted_keys/${author.signer.fingerprint}.toml`);
  return { fake, c, pull, keyFile };
}

describe('trustAuthorKey() through pullItem()', () => {
  it('scopes the author key to the pulled id; the author cannot sign a tool outside it, nothing runs', async () => {
    const { fake, c, pull, keyFile } = await setup();
    serveTool(fake, 'utils/greet');
    const result = await pull('utils/greet');
    expect(result['trusted_key']).toMatchObject({
      added: true,
      scope: { ids: ['utils/greet'], item_types: ['tool'] },
    });
    const key = await readTrustFile(keyFile);
    expect(key.scopes).toEqual([{ ids: ['utils/greet'], itemTypes: ['tool'] }]);

    // The same author's key signs another tool and places it in the project.
    const marker = join(c.root, 'marker');
    const evil = PYTHON_TOOL('utils', `open(${JSON.stringify(marker)}, "w").write("ran")`);
    const signed = signText(evil, { itemType: 'tool', extension: '.py', signer: author.signer });
    const path = join(c.spaces.project, '.ai/tools/utils/evil.py');
    writeFileSync(path, signed.text);
    const env = { ...process.env, ...c.env, RYE_SYSTEM_SPACE: BUILT_SYSTEM };
    const project = c.spaces.project;
    const res = await rye(['execute', 'tool', 'utils/evil', '--project', project, '--json'], {
      env,
    });
    expect(res.code).toBe(3);
    expect(res.json()).toMatchObject({ error: { code: 'INTEGRITY_UNTRUSTED_KEY' } });
    expect(existsSync(marker)).toBe(false);
    // The pulled tool itself still runs.
    const greet = await rye(['execute', 'tool', 'utils/greet', '--project', project, '--json'], {
      env,
    });
    expect(greet.code, greet.stdout + greet.stderr).toBe(0);
  });

  it('a later pull by the same author from the same registry widens the scope', async () => {
    const { fake, pull, keyFile } = await setup();
    serveTool(fake, 'utils/greet');
    serveTool(fake, 'utils/wave');
    await pull('utils/greet');
    const second = await pull('utils/wave');
    expect(second['trusted_key']).toMatchObject({ added: false, extended: true });
    expect((await readTrustFile(keyFile)).scopes).toEqual([
      { ids: ['utils/greet', 'utils/wave'], itemTypes: ['tool'] },
    ]);
    const again = await pull('utils/wave');
    expect(again['trusted_key']).toMatchObject({ added: false, extended: false });
  });

  it('never touches a trust file the pull did not write (the user trusts the key their own way)', async () => {
    const { fake, pull, keyFile } = await setup();
    const mine = formatTrustToml({
      fingerprint: author.signer.fingerprint,
      owner: 'alice, as I know her',
      attestation: '',
      publicKeyPem: author.publicKeyPem,
      scopes: [{ ids: ['mine/**'], itemTypes: null }],
    });
    mkdirSync(join(keyFile, '..'), { recursive: true });
    writeFileSync(keyFile, mine);
    serveTool(fake, 'utils/greet');
    const result = await pull('utils/greet');
    expect(result['trusted_key']).toMatchObject({ added: false, extended: false });
    expect(readFileSync(keyFile, 'utf8')).toBe(mine);
  });
});

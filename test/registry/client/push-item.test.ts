/**
 * pushItem() checks the declared version and package markers locally, before
 * anything leaves the machine (issue 11).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signText } from '../../../src/integrity/index.js';
import { pushItem } from '../../../src/registry/index.js';
import { saveCredential } from '../../../src/registry/client/index.js';
import { multiFileWarning } from '../../../src/registry/client/multi-file.js';
import { PYTHON_TOOL } from '../../helpers/items.js';
import { makeSigner } from '../../helpers/keys.js';
import { refusal } from '../../helpers/refusal.js';
import { clientSpaces, sessionFor, startFakeRegistry } from './fixtures.js';

describe('pushItem()', () => {
  it('refuses a version the item does not declare before any request', async () => {
    const fake = await startFakeRegistry();
    const { spaces } = clientSpaces();
    await saveCredential(spaces, fake.url, {
      username: 'alice',
      token: 'rye_x',
      tokenId: '',
      savedAt: '',
    });
    const { signer } = makeSigner();
    const dir = join(spaces.project, '.ai/tools/utils');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'greet.py'),
      signText(PYTHON_TOOL('utils'), { itemType: 'tool', extension: '.py', signer }).text,
    );
    const refused = await refusal(
      pushItem(sessionFor(spaces, fake.url), {
        itemType: 'tool',
        itemId: 'utils/greet',
        version: '1.0.1',
      }),
    );
    expect(refused.code).toBe('REGISTRY_VERSION_MISMATCH');
    expect(refused.details).toEqual({ declared: '1.0.0', version: '1.0.1' });
    expect(fake.seen).toEqual([]);
  });
});

describe('multiFileWarning()', () => {
  it.each(['__init__.py', 'pyproject.toml', 'package.json'])(
    'names %s and push-bundle',
    async (marker) => {
      const { root } = clientSpaces();
      writeFileSync(join(root, 'project', marker), '');
      const warning = await multiFileWarning(join(root, 'project', 'tool.py'), 'x/tool');
      expect(warning).toContain(marker);
      expect(warning).toContain('rye registry push-bundle');
    },
  );

  it('is null for a tool alone in its folder', async () => {
    const { root } = clientSpaces();
    expect(await multiFileWarning(join(root, 'project', 'tool.py'), 'x/tool')).toBeNull();
  });
});

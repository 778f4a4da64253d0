import { describe, expect, it } from 'vitest';
import { RyeError } from '../../src/errors/index.js';
import type { PrepareToPin } from '../../src/lockfile/index.js';
import { runRegistryAction } from '../../src/registry/index.js';
import { PYTHON_TOOL } from '../helpers/items.js';
import {
  clientSpaces,
  itemAnswer,
  makeKey,
  serveIndex,
  serveKey,
  startFakeRegistry,
} from './client/fixtures.js';

const registryKey = makeKey();
const author = makeKey();

/** A fake registry serving alice/utils/greet, and a fresh project to pull it into. */
async function setup() {
  const { doc } = itemAnswer({
    registry: registryKey,
    author,
    itemType: 'tool',
    extension: '.py',
    text: PYTHON_TOOL('utils'),
    namespace: 'alice',
    itemId: 'utils/greet',
    version: '1.0.0',
  });
  const fake = await startFakeRegistry();
  serveKey(fake, registryKey);
  serveIndex(fake, registryKey, [doc]);
  fake.routes.set('GET /v1/items/tool/alice/utils/greet', { json: doc });
  const client = clientSpaces();
  const pull = (options: { prepareToPin?: PrepareToPin } = {}) =>
    runRegistryAction(
      client.spaces,
      { action: 'pull', item_type: 'tool', item_id: 'alice/utils/greet', registry: fake.url },
      { env: client.env, ...options },
    );
  return { pull };
}

describe('runRegistryAction() of the registry entry', () => {
  it('pins a pulled tool with the executor’s verification when the caller passes none', async () => {
    const { pull } = await setup();
    const result = await pull();
    expect(result).toMatchObject({ status: 'written' });
    // A session without prepareToPin pins nothing and says nothing about a lockfile. This
    // project has no runtime to build the tool's chain with: the executor's check refuses.
    expect(result).toMatchObject({
      lockfile: null,
      lockfile_error: { code: 'EXECUTOR_MISSING_LINK' },
    });
  });

  it('pins with the caller’s prepareToPin instead when one is given', async () => {
    const { pull } = await setup();
    const asked: string[] = [];
    const result = await pull({
      prepareToPin: (_spaces, toolId) => {
        asked.push(toolId);
        return Promise.reject(new RyeError('EXECUTE_CANCELLED', 'Cannot pin: refused by the test'));
      },
    });
    expect(asked).toEqual(['utils/greet']);
    expect(result).toMatchObject({
      lockfile: null,
      lockfile_error: { code: 'EXECUTE_CANCELLED' },
    });
  });
});

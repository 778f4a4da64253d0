import { appendFileSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { updateLockfile } from '../../../src/executor/index.js';
import { loadSpaceTrust } from '../../../src/items/index.js';
import { makeExecProject } from '../../helpers/exec-project.js';
import { PYTHON_TOOL } from '../../helpers/items.js';

const REGISTRY = {
  url: 'http://127.0.0.1:8080',
  namespace: 'alice',
  item_id: 't/echo',
  version: '1.0.0',
  attested_at: '2026-01-02T03:04:05Z',
};

describe('lockfiles of pulled tools', () => {
  it('record the registry, keep it on a re-lock of the same content, drop it after an edit', async () => {
    const p = await makeExecProject();
    p.write('.ai/tools/t/echo.py', PYTHON_TOOL('t'));
    await p.sign('tool', 't/echo');
    const trust = async () => (await loadSpaceTrust(p.spaces)).trust;

    const first = await updateLockfile(p.spaces, 't/echo', await trust(), new Date(), REGISTRY);
    expect(first.lockfile.registry).toEqual(REGISTRY);
    expect(JSON.parse(readFileSync(first.path, 'utf8'))).toMatchObject({ registry: REGISTRY });

    const relocked = await updateLockfile(p.spaces, 't/echo', await trust());
    expect(JSON.parse(readFileSync(relocked.path, 'utf8'))).toMatchObject({ registry: REGISTRY });

    appendFileSync(`${p.project}/.ai/tools/t/echo.py`, '# local edit\n');
    await p.sign('tool', 't/echo');
    const edited = await updateLockfile(p.spaces, 't/echo', await trust());
    expect(JSON.parse(readFileSync(edited.path, 'utf8'))).toMatchObject({ registry: null });
  });
});

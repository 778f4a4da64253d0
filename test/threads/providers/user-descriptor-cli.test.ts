import { describe, expect, it } from 'vitest';
import { resolveSpaces } from '../../../src/items/index.js';
import { readProviderDescriptor } from '../../../src/threads/providers/index.js';
import { rye } from '../../helpers/cli.js';
import { BUILT_SYSTEM } from '../../helpers/exec-project.js';
import { makeTempSpaces } from '../../helpers/temp-space.js';
import { descriptorYaml } from './fixtures.js';

describe('a user-space provider descriptor, the documented way', () => {
  it('is signed with `rye sign tool rye/agent/providers/<id> --space user`, verifies, and is used', async () => {
    const s = makeTempSpaces({ system: BUILT_SYSTEM });
    expect((await rye(['keys', 'generate'], { env: s.env })).code).toBe(0);
    s.write(
      '.ai/tools/rye/agent/providers/ollama.yaml',
      descriptorYaml({
        baseUrl: 'http://localhost:11434/v1',
        family: 'openai_chat',
        extra: 'max_tokens_field: max_tokens\n',
      }),
      s.user,
    );
    const signed = await rye(
      [
        'sign',
        'tool',
        'rye/agent/providers/ollama',
        '--space',
        'user',
        '--json',
        '--project',
        s.project,
      ],
      { env: s.env },
    );
    expect(signed.code).toBe(0);
    expect(signed.json<{ summary: unknown }>().summary).toEqual({ signed: 1, failed: 0 });
    const verified = await rye(
      ['verify', 'tool', 'rye/agent/providers/ollama', '--json', '--project', s.project],
      { env: s.env },
    );
    expect(verified.code).toBe(0);
    expect(
      verified.json<{ results: { space: string; verdict: string }[] }>().results[0],
    ).toMatchObject({ space: 'user', verdict: 'ok' });
    const loaded = await readProviderDescriptor(
      resolveSpaces({ project: s.project, env: s.env }),
      'ollama',
    );
    expect(loaded.descriptor).toMatchObject({
      family: 'openai_chat',
      max_tokens_field: 'max_tokens',
    });

    // The same file in project space is not signable there: rye/ ids belong to user and system space only.
    s.write(
      '.ai/tools/rye/agent/providers/ollama.yaml',
      descriptorYaml({ baseUrl: 'https://x.example' }),
    );
    const project = await rye(
      ['sign', 'tool', 'rye/agent/providers/ollama', '--json', '--project', s.project],
      { env: s.env },
    );
    expect(project.code).not.toBe(0);
    expect(project.json<{ error: { code: string } }>().error.code).toBe('ITEM_ID_RESERVED');
  });
});

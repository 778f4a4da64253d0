import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyFiles, readSigner } from '../../src/integrity/index.js';
import {
  ensureSelfTrusted,
  keyDir,
  resolveSpaces,
  selectItems,
  signItemFile,
  type ItemType,
  type Spaces,
} from '../../src/items/index.js';
import { makeTempSpaces, type TempSpaces } from './temp-space.js';

/** The built, signed standard library (the vitest global setup builds it). */
export const BUILT_SYSTEM = fileURLToPath(new URL('../../dist/system', import.meta.url));

export interface ExecProject extends TempSpaces {
  readonly spaces: Spaces;
  /** Sign project items matching a glob or id with the user's key. */
  sign(itemType: ItemType, pattern: string): Promise<void>;
}

/**
 * Temp project + user space with a key, and a private copy of the signed
 * system space (so a test may tamper with a runtime without touching dist/).
 */
export async function makeExecProject(options: { sandbox?: 'off' } = {}): Promise<ExecProject> {
  const base = makeTempSpaces(options);
  if (!existsSync(join(BUILT_SYSTEM, '.ai')))
    throw new Error(`run npm run build first: ${BUILT_SYSTEM} is missing`);
  cpSync(BUILT_SYSTEM, base.system, { recursive: true });
  const spaces = resolveSpaces({ project: base.project, env: base.env });
  await generateKeyFiles(keyDir(spaces));
  const signer = await readSigner(keyDir(spaces));
  await ensureSelfTrusted(spaces, signer);
  return {
    ...base,
    spaces,
    async sign(itemType, pattern) {
      for (const item of await selectItems(spaces, itemType, pattern, ['project']))
        await signItemFile(item, signer);
    },
  };
}

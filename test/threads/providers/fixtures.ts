/** Provider descriptors for tests: YAML text, and signed files in a temp user space. */
import { readSigner } from '../../../src/integrity/index.js';
import { keyDir, selectItems, signItemFile } from '../../../src/items/index.js';
import type { ExecProject } from '../../helpers/exec-project.js';

export interface DescriptorOptions {
  readonly family?: 'anthropic_messages' | 'openai_chat';
  readonly baseUrl: string;
  readonly header?: 'x-api-key' | 'authorization';
  readonly env?: string;
  readonly extra?: string;
}

/** A valid descriptor with two models and two tiers. */
export function descriptorYaml(options: DescriptorOptions): string {
  const family = options.family ?? 'anthropic_messages';
  const header = options.header ?? (family === 'openai_chat' ? 'authorization' : 'x-api-key');
  const auth =
    header === 'authorization'
      ? `auth:\n  header: authorization\n  scheme: Bearer\n  env: ${options.env ?? 'TEST_PROVIDER_KEY'}\n`
      : `auth:\n  header: x-api-key\n  env: ${options.env ?? 'TEST_PROVIDER_KEY'}\n`;
  return `version: "1.0.0"
category: rye/agent/providers
description: "test provider"
family: ${family}
base_url: ${options.baseUrl}
${auth}headers:
  x-test-header: fixed-value
tiers:
  small: small-model
  big: big-model
models:
  small-model:
    context_window: 100000
    output_limit: 4096
    pricing: { input: "0.25", output: "1.25" }
  big-model:
    context_window: 200000
    output_limit: 8192
    pricing: { input: "3.00", output: "15.00", cache_read: "0.30", cache_write: "3.75" }
${options.extra ?? ''}`;
}

/** Write `rye/agent/providers/<id>` into user space and sign it with the user's key, as `rye sign --space user` does. */
export async function signUserDescriptor(
  p: ExecProject,
  id: string,
  text: string,
): Promise<string> {
  const path = p.write(`.ai/tools/rye/agent/providers/${id}.yaml`, text, p.user);
  const signer = await readSigner(keyDir(p.spaces));
  for (const item of await selectItems(p.spaces, 'tool', `rye/agent/providers/${id}`, ['user']))
    await signItemFile(item, signer);
  return path;
}

// Issue 2 benchmarks: verification and signing throughput in process, the raw
// crypto floor, and one whole `rye verify-file` process.
import { spawnSync } from 'node:child_process';
import { createHash, verify as edVerify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  fingerprintOf,
  formatTrustToml,
  generateKeyPair,
  parsePrivateKey,
  parsePublicKey,
  signText,
  trustSetOf,
  verifyText,
  verifyTextAsync,
} from '../dist/src/index.js';
import { median, report, throughput, throughputAsync } from './util.mjs';

const ITEM_KINDS = [
  [
    'tool',
    '.py',
    (i) =>
      `"""Tool ${i}."""\n__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_script_runtime"\n__category__ = "bench"\n__tool_description__ = "Bench tool ${i}"\n\n${'def step(x):\n    return x + 1\n\n'.repeat(20)}`,
  ],
  [
    'tool',
    '.yaml',
    (i) =>
      `version: "1.0.0"\ntool_type: runtime\nexecutor_id: rye/core/primitives/subprocess\ncategory: bench\ndescription: "Runtime ${i}"\nconfig:\n  command: node\n  args: ["{tool_path}"]\n${'# padding line for a realistic size\n'.repeat(20)}`,
  ],
  [
    'tool',
    '.ts',
    (i) =>
      `#!/usr/bin/env node\nexport const __version__ = "1.0.0";\nexport const __executor_id__ = "rye/core/runtimes/node_runtime";\n${`console.log(JSON.stringify({ ok: true, n: ${i} }));\n`.repeat(20)}`,
  ],
  [
    'tool',
    '.json',
    (i) =>
      JSON.stringify(
        {
          version: '1.0.0',
          n: i,
          config: { args: Array.from({ length: 20 }, (_, k) => `arg${k}`) },
        },
        null,
        2,
      ),
  ],
  [
    'directive',
    '.md',
    (i) =>
      `# Directive ${i}\n\n\`\`\`xml\n<directive name="d${i}" version="1.0.0">\n  <metadata><description>Bench</description><category>bench</category><author>b</author></metadata>\n${'  <step name="s"><description>Do a thing.</description></step>\n'.repeat(20)}</directive>\n\`\`\`\n`,
  ],
  [
    'knowledge',
    '.md',
    (i) =>
      `\`\`\`yaml\nname: k${i}\ntitle: Knowledge ${i}\nentry_type: reference\nversion: "1.0.0"\n\`\`\`\n\n${'Reference text for the benchmark.\n'.repeat(40)}`,
  ],
];

export async function run() {
  const pair = generateKeyPair();
  const signer = {
    privateKey: parsePrivateKey(pair.privateKeyPem),
    fingerprint: fingerprintOf(pair.publicKeyPem),
  };
  const publicInfo = parsePublicKey(pair.publicKeyPem);
  const trust = trustSetOf([{ ...publicInfo, owner: 'bench', attestation: '', source: null }]);

  const raw = Array.from({ length: 1000 }, (_, i) => {
    const [itemType, extension, make] = ITEM_KINDS[i % ITEM_KINDS.length];
    return { itemType, extension, text: make(i) };
  });
  const signRate = throughput(
    raw,
    (item) => signText(item.text, { itemType: item.itemType, extension: item.extension, signer }),
    1000,
  );
  report('sign.items_per_s', signRate, 'items/s', {
    items: raw.length,
    mix: 'py,yaml,ts,json,directive,knowledge',
  });

  const signed = raw.map((item) => ({
    ...item,
    text: signText(item.text, { itemType: item.itemType, extension: item.extension, signer }).text,
  }));
  for (const item of signed) {
    const result = verifyText(item.text, {
      itemType: item.itemType,
      extension: item.extension,
      trust,
    });
    if (!result.ok) throw new Error(`bench item failed to verify: ${result.message}`);
  }
  const verifyRate = throughput(signed, (item) =>
    verifyText(item.text, { itemType: item.itemType, extension: item.extension, trust }),
  );
  // The same 1,000 items verified together: Ed25519 runs on the thread pool (both cores).
  const verifyAllRate = await throughputAsync(signed, (items) =>
    Promise.all(
      items.map((item) =>
        verifyTextAsync(item.text, { itemType: item.itemType, extension: item.extension, trust }),
      ),
    ),
  );

  // The floor: one SHA-256 and one Ed25519 verification per item, nothing else.
  const floorInputs = signed.map((item) => {
    return {
      text: item.text,
      signature: Buffer.from(
        signText(item.text, {
          itemType: 'knowledge',
          extension: '.md',
          signer,
        }).fields.signature.replace(/=+$/, ''),
        'base64url',
      ),
    };
  });
  const floorRate = throughput(floorInputs, ({ text, signature }) => {
    const hash = createHash('sha256').update(text).digest('hex');
    edVerify(null, Buffer.from(hash, 'latin1'), publicInfo.key, signature);
  });
  report('verify.raw_floor_items_per_s', floorRate, 'items/s', { items: signed.length });
  report('verify.items_per_s', verifyAllRate, 'items/s', {
    items: signed.length,
    keys_cached: true,
    mode: 'verifyTextAsync, 1,000 at once (thread pool, both cores)',
    vs_raw_floor: Number((verifyAllRate / floorRate).toFixed(3)),
    goal: '>= 0.7 x raw floor; about 9000 items/s',
  });
  report('verify.single_thread_items_per_s', verifyRate, 'items/s', {
    items: signed.length,
    mode: 'verifyText, one after another',
    vs_raw_floor: Number((verifyRate / floorRate).toFixed(3)),
  });

  // One whole `rye verify-file` process, median of 15 runs.
  const dir = mkdtempSync(join(tmpdir(), 'rye-bench-'));
  try {
    const file = join(dir, 'tool.py');
    writeFileSync(file, signed[0].text);
    const trustFile = join(dir, `${signer.fingerprint}.toml`);
    writeFileSync(
      trustFile,
      formatTrustToml({
        fingerprint: signer.fingerprint,
        owner: 'bench',
        attestation: '',
        publicKeyPem: pair.publicKeyPem,
      }),
    );
    const bin = fileURLToPath(new URL('../bin/rye.js', import.meta.url));
    const args = [bin, 'verify-file', file, '--item-type', 'tool', '--trust', trustFile, '--json'];
    const times = [];
    for (let i = 0; i < 16; i += 1) {
      const start = performance.now();
      const res = spawnSync(process.execPath, args, { encoding: 'utf8' });
      if (res.status !== 0) throw new Error(`verify-file failed: ${res.stdout}${res.stderr}`);
      if (i > 0) times.push(performance.now() - start);
    }
    const nodeTimes = [];
    for (let i = 0; i < 8; i += 1) {
      const start = performance.now();
      spawnSync(process.execPath, ['-e', '0']);
      nodeTimes.push(performance.now() - start);
    }
    report('cli.verify_file_ms', median(times), 'ms', {
      runs: times.length,
      node_startup_ms: Number(median(nodeTimes).toFixed(1)),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

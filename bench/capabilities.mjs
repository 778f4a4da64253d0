// Issue 13/15/30 benchmarks: one capability check on a compiled set of realistic
// size, a 50×50 intersection, and the verification of a 3-block token chain as
// its holder presents it (sealed: one more Ed25519 verification, never cached).
import { generateKeyPairSync, sign as edSign, verify as edVerify } from 'node:crypto';
import {
  allowed,
  appendTokenBlock,
  audienceOf,
  compileCaps,
  intersectCaps,
  mintToken,
  newHolderKey,
  parseCapability,
  clearVerifiedPrefixes,
  sealToken,
  verifyToken,
} from '../dist/src/capabilities/index.js';
import { fingerprintOf, generateKeyPair, parsePrivateKey } from '../dist/src/index.js';
import { report, throughput } from './util.mjs';

const VERBS = ['execute', 'search', 'load', 'sign'];
const TYPES = ['tool', 'directive', 'knowledge'];

/** A task-manager-sized set: ~60 grants, exact ids and nested prefixes over the four verbs. */
function realisticCaps() {
  const caps = [];
  for (let i = 0; i < 20; i++) caps.push(`rye.execute.tool.apps/web/tool_${i}`);
  for (let i = 0; i < 10; i++) caps.push(`rye.execute.tool.lib/group_${i}/*`);
  caps.push(
    'rye.execute.tool.rye/file-system/*',
    'rye.execute.tool.rye/core/runtimes/node_runtime',
  );
  for (let i = 0; i < 10; i++) caps.push(`rye.execute.directive.apps/feature_${i}`);
  for (let i = 0; i < 10; i++) caps.push(`rye.load.knowledge.docs/topic_${i}/*`);
  caps.push('rye.search.knowledge.*', 'rye.search.tool.apps/*', 'rye.search.directive.apps/*');
  for (let i = 0; i < 5; i++) caps.push(`rye.sign.tool.apps/generated_${i}/*`);
  return caps.map((c) => parseCapability(c));
}

function checkQueries() {
  const queries = [];
  for (let i = 0; i < 64; i++) {
    const verb = VERBS[i % 4];
    const type = TYPES[i % 3];
    const ids = [
      `apps/web/tool_${i % 25}`,
      `lib/group_${i % 12}/deep/er/item_${i}`,
      `docs/topic_${i % 11}/page_${i}`,
      `rye/file-system/fs_read`,
      `apps/feature_${i % 12}`,
      `unrelated/path_${i}/x`,
    ];
    queries.push([verb, type, ids[i % ids.length]]);
  }
  return queries;
}

/** 50 patterns per side over shared prefixes, so meets are found and missed. */
function sidePatterns(seed) {
  const caps = [];
  for (let i = 0; i < 50; i++) {
    const verb = VERBS[(i + seed) % 4];
    const type = TYPES[(i * 7 + seed) % 3];
    const depth = 1 + ((i + seed) % 3);
    const path = Array.from({ length: depth }, (_, d) => `s${(i * (d + 3) + seed) % 6}`).join('/');
    caps.push(parseCapability(`rye.${verb}.${type}.${i % 3 === 0 ? path : `${path}/*`}`));
  }
  return caps;
}

function tokenChain() {
  const pair = generateKeyPair();
  const signer = {
    privateKey: parsePrivateKey(pair.privateKeyPem),
    fingerprint: fingerprintOf(pair.publicKeyPem),
  };
  const aud = audienceOf('/bench/project', signer.fingerprint);
  const caps = realisticCaps();
  const now = Math.floor(Date.now() / 1000);
  const [k0, k1, k2] = [newHolderKey(), newHolderKey(), newHolderKey()];
  let token = mintToken({
    signer,
    tree: 'build_crud_app-01jf0000000000000000000000',
    thread: 'build_crud_app-01jf0000000000000000000000',
    aud,
    caps,
    nbf: now,
    holderPublicKey: k0.publicKey,
  });
  token = appendTokenBlock(token, {
    holder: k0,
    thread: 'implement_feature-01jf0000000000000000000001',
    caps: caps.slice(0, 40),
    nbf: now,
    holderPublicKey: k1.publicKey,
  });
  token = appendTokenBlock(token, {
    holder: k1,
    thread: 'run_tests-01jf0000000000000000000002',
    caps: caps.slice(0, 10),
    nbf: now,
    holderPublicKey: k2.publicKey,
  });
  token = sealToken(token, k2, aud);
  const options = {
    userPublicKey: pair.publicKeyPem,
    audience: aud,
    now,
    lookupJti: () => 'running',
  };
  return { token, options };
}

export async function run() {
  const set = compileCaps(realisticCaps());
  const queries = checkQueries();
  const allowedShare =
    queries.filter(([v, t, id]) => allowed(set, v, t, id)).length / queries.length;
  const checksPerS = throughput(queries, ([verb, type, id]) => allowed(set, verb, type, id));
  report('capability.check_ns', 1e9 / checksPerS, 'ns', {
    grants: set.caps.length,
    allowed_share: Number(allowedShare.toFixed(2)),
    goal: 1000,
  });

  const a = sidePatterns(1);
  const b = sidePatterns(2);
  const intersectsPerS = throughput([[a, b]], ([x, y]) => intersectCaps(x, y), 1000);
  report('capability.intersect_us', 1e6 / intersectsPerS, 'us', { patterns: '50x50' });

  const { token, options } = tokenChain();
  verifyToken(token, options);
  // Cold: nothing of the chain verified before in this process (a tool's `rye`).
  const verifiesPerS = throughput(
    [token],
    (t) => {
      clearVerifiedPrefixes();
      verifyToken(t, options);
    },
    1500,
  );
  // Warm: the thread presenting its token again, or a child whose parent's
  // prefix this process verified (the in-process tree): no chain signature
  // re-checked, only the seal.
  const warmPerS = throughput([token], (t) => verifyToken(t, options), 1500);
  // The floor in the same run: the three Ed25519 verifications of the chain
  // alone (the seal is a fourth).
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const digest = Buffer.alloc(64, 7);
  const sig = edSign(null, digest, privateKey);
  const edPerS = throughput([digest], (d) => edVerify(null, d, publicKey, sig), 1000);
  report('token.verify_chain_us', 1e6 / verifiesPerS, 'us', {
    blocks: 3,
    bytes: token.length,
    ed25519_verify_x3_us: Number(((3 * 1e6) / edPerS).toFixed(1)),
    warm_us: Number((1e6 / warmPerS).toFixed(1)),
    goal: 500,
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await run();

import {
  fingerprintOf,
  generateKeyPair,
  parsePrivateKey,
  parsePublicKey,
  trustSetOf,
  type Signer,
  type TrustSet,
} from '../../src/integrity/index.js';

/** A fresh signer and a trust set holding only its key. */
export function makeSigner(owner = 'tester'): {
  signer: Signer;
  trust: TrustSet;
  publicKeyPem: string;
} {
  const pair = generateKeyPair();
  const signer = {
    privateKey: parsePrivateKey(pair.privateKeyPem),
    fingerprint: fingerprintOf(pair.publicKeyPem),
  };
  const info = parsePublicKey(pair.publicKeyPem);
  const trust = trustSetOf([{ ...info, owner, attestation: '', source: null }]);
  return { signer, trust, publicKeyPem: pair.publicKeyPem };
}

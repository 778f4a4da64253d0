import { RyeError } from '../../errors/index.js';
import { sha256Hex, signText, type ItemType, type SignatureFields } from '../../integrity/index.js';
import { signStatement, type AttestationStatement } from '../attestation.js';
import type { RegistryKey } from './registry-key.js';

/** What is attested: a statement's subject plus the author-signed text. */
export interface AttestInput {
  readonly kind: 'item' | 'bundle';
  readonly itemType: 'directive' | 'tool' | 'knowledge' | null;
  readonly namespace: string;
  readonly itemId: string;
  readonly version: string;
  readonly extension: string | null;
  /** The author-signed text, and the format its signature line takes. */
  readonly text: string;
  readonly signAs: { readonly itemType: ItemType; readonly extension: string };
  readonly author: SignatureFields;
  readonly now: Date;
}

export interface Attested {
  /** The registry-signed text (`…|rye-registry@<namespace>`), UTF-8. */
  readonly bytes: Buffer;
  readonly blobSha256: string;
  readonly statement: string;
  readonly statementSignature: string;
  /** `YYYY-MM-DDTHH:MM:SSZ`: the signature line's time and the statement's `attested_at`. */
  readonly attestedAt: string;
}

/**
 * Re-sign author-verified text with the registry key (provenance
 * `rye-registry@<namespace>`) and sign the statement binding it to its name.
 * Pure apart from the clock passed in.
 *
 * @throws RyeError REGISTRY_INTERNAL when the registry's hash differs from the author's
 */
export function attest(key: RegistryKey, input: AttestInput): Attested {
  const signed = signText(input.text, {
    ...input.signAs,
    signer: key.signer,
    provenance: `rye-registry@${input.namespace}`,
    now: input.now,
  });
  if (signed.fields.contentHash !== input.author.contentHash) {
    throw new RyeError(
      'REGISTRY_INTERNAL',
      `Cannot attest ${input.namespace}/${input.itemId}: the registry hashes it as ${signed.fields.contentHash}, the author as ${input.author.contentHash}`,
      {},
    );
  }
  const statement: AttestationStatement = {
    rye_attestation: 1,
    kind: input.kind,
    item_type: input.itemType,
    namespace: input.namespace,
    item_id: input.itemId,
    version: input.version,
    extension: input.extension,
    content_hash: input.author.contentHash,
    author_fingerprint: input.author.fingerprint,
    registry_fingerprint: key.fingerprint,
    attested_at: signed.fields.timestamp,
  };
  const signedStatement = signStatement(key.signer, statement);
  const bytes = Buffer.from(signed.text, 'utf8');
  return {
    bytes,
    blobSha256: sha256Hex(bytes),
    statement: signedStatement.statement,
    statementSignature: signedStatement.signature,
    attestedAt: signed.fields.timestamp,
  };
}

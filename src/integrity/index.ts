export { bodyWithoutSignature } from './body.js';
export { findSignatureLine, locateCommentSignature } from './comment-signature.js';
export type { CommentSignatureLocation } from './comment-signature.js';
export { canonicalJson, compareCodePoints } from './canonical-json.js';
export { computeContentHash } from './content-hash.js';
export { jsonNodeToValue, parseJsonAst, tryParseJsonAst } from './json-ast.js';
export type { JsonNode, JsonObjectNode } from './json-ast.js';
export { readJsonSignature, writeJsonSignature } from './json-signature.js';
export {
  hexDigestsEqual,
  normalizeNewlines,
  sha256Bytes,
  sha256Hasher,
  sha256Hex,
} from './hash.js';
export type { Sha256Hasher } from './hash.js';
export { directiveSpan, toolHashedText } from './hashed-content.js';
export type { Coverage } from './hashed-content.js';
export {
  PRIVATE_KEY_FILE,
  PUBLIC_KEY_FILE,
  generateKeyFiles,
  readPublicKeyFile,
  readSigner,
} from './key-files.js';
export type { KeyFiles } from './key-files.js';
export {
  canonicalPem,
  fingerprintOf,
  generateKeyPair,
  parsePrivateKey,
  parsePublicKey,
  publicPemOf,
  signBytes,
  verifyBytes,
  verifyBytesAsync,
} from './keys.js';
export type { KeyPairPem, PublicKeyInfo } from './keys.js';
export { derivedMacKey, macHex, macMatches } from './mac.js';
export { apiTokenHash, hashPassword, newApiToken, verifyPassword } from './password.js';
export type { ApiToken } from './password.js';
export { resealText, signText } from './sign.js';
export type { ResealTextOptions, SignTextOptions, SignedText, Signer } from './sign.js';
export {
  DEFAULT_SIGNATURE_FORMATS,
  ITEM_TYPES,
  mergeSignatureFormats,
  signatureFormatFor,
} from './signature-formats.js';
export type {
  ItemType,
  SignatureFormat,
  SignatureFormatRows,
  SignatureFormatTable,
} from './signature-formats.js';
export {
  SIGNATURE_MARKER,
  decodeSignature,
  encodeSignature,
  formatSignaturePayload,
  formatTimestamp,
  tryParseSignaturePayload,
} from './signature-line.js';
export type { SignatureFields } from './signature-line.js';
export {
  SCOPE_ITEM_TYPES,
  describeScopes,
  keyScopeJson,
  parseKeyScope,
  scopePatternCovers,
  scopePatternProblem,
  scopesCover,
} from './key-scope.js';
export type { KeyScope, KeyScopeJson, ScopeItemType, VerifySubject } from './key-scope.js';
export { TrustedCache } from './trusted-cache.js';
export type { TrustedEntry } from './trusted-cache.js';
export { trustSetOf } from './trust.js';
export type { TrustSet, TrustedKey } from './trust.js';
export { withPendingKeys, pendingKeyFor } from './pending-keys.js';
export type { PendingKey } from './pending-keys.js';
export {
  loadExplicitTrust,
  loadTrustStore,
  mergeLoadedTrust,
  parseTrustSnapshot,
  readTrustFile,
  readTrustSnapshot,
  trustSnapshotDigest,
} from './trust-store.js';
export type { LoadedTrust, StoredTrustedKey, TrustSnapshot } from './trust-store.js';
export { MAX_TRUST_FILE_BYTES, formatTrustToml, parseTrustToml } from './trust-toml.js';
export { emptyResult, verdictReason } from './verdict.js';
export type { Verdict, VerifyResult } from './verdict.js';
export { verifyFile, verifyFileSync } from './verify-file.js';
export { runnableBytes } from './runnable.js';
export { verifyText, verifyTextAsync } from './verify.js';
export type { VerifyTextOptions } from './verify.js';

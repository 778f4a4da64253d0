export { audienceOf } from './audience.js';
export { authorityOf, narrowAuthority, operatorAuthority, requireAllowed } from './authority.js';
export type { Authority, AuthoritySource, TokenHolder } from './authority.js';
export {
  EMPTY_CAP_SET,
  allowed,
  allowedViaChain,
  capSetCovers,
  capStrings,
  compileCaps,
} from './cap-set.js';
export type { CapSet } from './cap-set.js';
export {
  CAPABILITY_PREFIX,
  CAP_VERBS,
  capabilityProblem,
  formatCapability,
  makeCapability,
  parseCapability,
  tryParseCapability,
} from './capability.js';
export type { CapVerb, Capability } from './capability.js';
export { MAX_CAPS_TEXT, parseCapsOption } from './caps-option.js';
export type { CapsOption } from './caps-option.js';
export { capsFromDirective, capsOfPermissions, patternOfValue } from './from-directive.js';
export type { DeclaredCaps, RawPermission, RawPermissions } from './from-directive.js';
export { newHolderKey } from './holder-key.js';
export type { HolderKey } from './holder-key.js';
export { droppedFrom, intersectCaps } from './intersect.js';
export type { Intersection } from './intersect.js';
export { ANY_ID, patternCovers, patternMatches, patternProblem } from './pattern.js';
export type { Pattern } from './pattern.js';
export { REDACTED_TOKEN, redactTokens } from './redact.js';
export { UNLIMITED_TOKEN_TTL_S, appendTokenBlock, mintToken, newJti } from './token.js';
export type { AppendTokenOptions, MintTokenOptions } from './token.js';
export type { TokenBody } from './token-body.js';
export { MAX_TOKEN_BLOCKS, MAX_TOKEN_LENGTH, TOKEN_PREFIX } from './token-codec.js';
export type { TokenRefusal } from './token-error.js';
export { TOKEN_CLOCK_SKEW_S, clearVerifiedPrefixes, verifyToken } from './token-verify.js';
export { verifyPresented } from './token-presented.js';
export { decodeToken, splitToken } from './token-codec.js';
export { SEAL_CONTEXT, sealMessage, sealToken } from './token-seal.js';
export type { JtiHolder, TokenTrust } from './token-presented.js';
export type { JtiState, VerifiedToken, VerifyTokenOptions } from './token-verify.js';
export {
  MAX_CEILING_TTL_S,
  mintCeilingToken,
  parseTtl,
  isCeilingToken,
  localTokenTrust,
  verifyCeilingToken,
} from './ceiling-token.js';
export type { MintedCeiling } from './ceiling-token.js';
export {
  MAX_REVOCATION_BYTES,
  parseRevocationList,
  readRevocationList,
  revocationListPath,
  revokeCeilingJti,
} from './revocations.js';

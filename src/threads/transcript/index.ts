export {
  EVENT_TYPES,
  TERMINAL_EVENT_TYPES,
  ZERO_COST,
  isEventType,
  isTerminalType,
} from './event.js';
export type {
  AnyPayload,
  CognitionInContent,
  CognitionOutPart,
  ErrorInfo,
  EventType,
  PayloadOf,
  Payloads,
  StoredEvent,
  TerminalEventType,
  TerminalPayload,
  ThreadCost,
  TranscriptEvent,
} from './event.js';
export { REDACTED_TOKEN, TOKEN_PATTERN, redactJson, redactTokens } from './redact.js';
export { MAX_EVENT_BYTES, storedJson } from './encode.js';
export {
  MAX_ARTIFACT_BYTES,
  artifactDigest,
  looksLikeArtifactRef,
  readArtifactBytes,
  resolveArtifacts,
  writeArtifactSync,
} from './artifacts.js';
export type { ArtifactRef } from './artifacts.js';
export {
  checkpointMessage,
  checkpointProblem,
  prepareCheckpoint,
  signCheckpoint,
} from './checkpoint.js';
export type { CheckpointPayload, PendingSignature } from './checkpoint.js';
export { lastLimitsSet, limitsSetMessage, limitsSetProblem, signLimitsSet } from './limits-set.js';
export type { LimitsRecord, LimitsSetPayload } from './event.js';
export { TranscriptWriter } from './writer.js';
export type { TranscriptHead, TranscriptWriterOptions } from './writer.js';
export { MAX_TRANSCRIPT_BYTES, readTranscriptBytes, splitLines } from './reader.js';
export type { TranscriptLines } from './reader.js';
export { verifyTranscript, verifyTranscriptAsync } from './chain.js';
export type {
  CheckpointMode,
  TranscriptKeys,
  VerifiedTranscript,
  VerifyTranscriptOptions,
} from './chain.js';
export { danglingCalls, planRepair, repairTranscript } from './repair.js';
export type { RepairOptions, RepairPlan } from './repair.js';
export { mergeRoles, rebuildThread, resultContent } from './rebuild.js';
export type { RebuildAnomaly, RebuiltThread, RebuiltUnit } from './rebuild.js';
export { macKeyring } from './mac.js';
export type { MacKeyring } from './mac.js';

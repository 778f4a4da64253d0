export {
  MAX_ITEM_BYTES,
  decodeText,
  messageOf,
  pathExists,
  readFileCapped,
  readFileCappedStatSync,
  readFileCappedSync,
  readOpenFileSync,
  readTextFile,
  readTextFileSync,
  unreadable,
  writeFileAtomic,
} from './files.js';
export { compileGlob, isGlob } from './glob.js';
export { FieldReader, fieldOf, fieldPath, isJsonObject, jsonKind } from './json-fields.js';
export type {
  Absence,
  FieldProblem,
  FieldSink,
  FieldSource,
  FieldType,
  JsonObject,
  StringRule,
} from './json-fields.js';
export { fileUrlOf, pathOfFileUrl } from './file-url.js';
export { packageRoot } from './package-root.js';
export { mapLimit } from './map-limit.js';
export { relativeInside } from './path-inside.js';
export {
  escapeControl,
  escapeControlInJson,
  escapeControlLines,
  hasControl,
  printable,
} from './terminal-text.js';
export { openSqlite } from './sqlite.js';
export { monotonicMs } from './monotonic.js';
export { pause } from './pause.js';
export { sha256Bytes, sha256Hex } from './sha256.js';
export { devNullDescriptor, inheritableDescriptors } from './inherited-fds.js';
export {
  REDACTED_SECRET,
  REDACTED_TOKEN,
  SECRET_ENV_NAMES,
  TOKEN_PATTERN,
  isSecretEnvName,
  redactSecrets,
  rememberEnvSecrets,
  rememberSecret,
} from './secrets.js';

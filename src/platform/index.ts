export {
  MAX_ITEM_BYTES,
  decodeText,
  messageOf,
  pathExists,
  readFileCapped,
  readFileCappedSync,
  readOpenFileSync,
  readTextFile,
  readTextFileSync,
  unreadable,
  writeFileAtomic,
} from './files.js';
export { packageRoot } from './package-root.js';
export { mapLimit } from './map-limit.js';
export { relativeInside } from './path-inside.js';
export {
  escapeControl,
  escapeControlInJson,
  escapeControlLines,
  hasControl,
} from './terminal-text.js';
export { openSqlite } from './sqlite.js';

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
export { compileGlob, isGlob } from './glob.js';
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

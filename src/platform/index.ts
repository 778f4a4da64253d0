export {
  MAX_ITEM_BYTES,
  decodeText,
  messageOf,
  pathExists,
  readFileCapped,
  readFileCappedSync,
  readTextFile,
  readTextFileSync,
  unreadable,
  writeFileAtomic,
} from './files.js';
export { packageRoot } from './package-root.js';

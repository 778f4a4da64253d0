export { ThreadTree, bindRun, treeOf } from './thread-tree.js';
export type { TreeNode } from './thread-tree.js';
export { mintChildToken, mintRootToken } from './thread-token.js';
export type { ThreadToken } from './thread-token.js';
export { runChild, startNode } from './start-node.js';
export type { NodeStart } from './start-node.js';
export { spawnChild } from './spawn-child.js';
export type { SpawnRequest, SpawnedChild } from './spawn-child.js';
export { childResult, handleOf, linksFor } from './thread-links.js';

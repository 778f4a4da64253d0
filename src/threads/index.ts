/*
 * The threads layer's door for the layers above it (registry, mcp, cli): the
 * four operations, the capability model and the item catalog. Each re-exports
 * its own domain door unchanged.
 */
export * from './ops/index.js';
export * from '../capabilities/index.js';
export * from '../catalog/index.js';

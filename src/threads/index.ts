/*
 * The threads layer's door for the layers above it (registry, mcp, cli): the
 * thread runner as the operations see it. Each part of threads has its own
 * door (threads/<part>/index.ts), so a command loads only what it uses.
 */
export { THREADS_PORT } from './root/index.js';

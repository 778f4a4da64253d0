/**
 * The registry server (protocol v1, ../README.md): a Hono app over an
 * injected store and key, and the process that serves it.
 */
export { DEFAULT_LIMITS, createRegistryApp } from './app.js';
export type { RegistryAppOptions } from './app.js';
export type { LogFn, RegistryLimits } from './context.js';
export { statusFor } from './errors.js';
export { REGISTRY_KEY_FILE, loadOrCreateRegistryKey, registryKeyOf } from './registry-key.js';
export type { RegistryKey } from './registry-key.js';
export { jsonLines } from './request-log.js';
export { DEFAULT_INDEX_TTL_SECONDS, IndexSigner } from './signed-index.js';
export type { IndexOptions } from './signed-index.js';
export type { LogLevel } from './request-log.js';
export { startRegistryServer } from './serve.js';
export type { RegistryServerOptions, RunningRegistry } from './serve.js';
export { openPostgresStore, openSqliteStore, openStore } from './store/index.js';
export type { RegistryStore } from './store/index.js';

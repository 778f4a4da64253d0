import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

let cached: string | undefined;

/** The file URL of the TypeScript loader (tsx, ESM and CommonJS) that node_runtime passes to `node --import`. */
export function tsLoaderUrl(): string {
  cached ??= pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return cached;
}

// Production build: copy the client into dist/ with a manifest of SHA-256 hashes.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const files = {};
for (const name of readdirSync(join(root, 'client')).sort()) {
  const bytes = readFileSync(join(root, 'client', name));
  writeFileSync(join(out, name), bytes);
  files[name] = createHash('sha256').update(bytes).digest('hex');
}
writeFileSync(join(out, 'manifest.json'), JSON.stringify({ files }, null, 2) + '\n');
console.log(JSON.stringify({ dist: 'dist', files: Object.keys(files) }));

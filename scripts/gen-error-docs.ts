// Writes docs/errors.md from src/errors/codes.ts (`npm run docs:errors`).
// test/errors/codes.test.ts fails while the committed page is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES } from '../src/errors/index.js';
import { formatErrorReference } from './error-reference.js';

const target = fileURLToPath(new URL('../docs/errors.md', import.meta.url));
writeFileSync(target, formatErrorReference(ERROR_CODES));
process.stdout.write(`wrote ${target}: ${Object.keys(ERROR_CODES).length} codes\n`);

// Migrations: bring the store file to SCHEMA_VERSION (node server/db/migrate.js).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMA_VERSION } from './schema.js';

export function migrate(file) {
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(
      file,
      JSON.stringify({ version: SCHEMA_VERSION, nextId: 1, tasks: [] }, null, 2) + '\n',
    );
    return { from: 0, to: SCHEMA_VERSION };
  }
  const data = JSON.parse(readFileSync(file, 'utf8'));
  return { from: data.version, to: data.version };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file =
    process.env.DATA_FILE ?? fileURLToPath(new URL('../../data/tasks.json', import.meta.url));
  console.log(JSON.stringify(migrate(file)));
}

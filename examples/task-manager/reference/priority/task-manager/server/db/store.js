// A JSON-file store: the whole file is read once and rewritten atomically
// (temporary file, then rename) on every change.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PRIORITY, SCHEMA_VERSION } from './schema.js';

export function openStore(location) {
  const file = location instanceof URL ? fileURLToPath(location) : location;
  let data = { version: SCHEMA_VERSION, nextId: 1, tasks: [] };
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  // Tasks stored before priorities existed read as the default; the next save keeps it.
  for (const task of data.tasks) task.priority ??= DEFAULT_PRIORITY;
  const save = () => {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(`${file}.tmp`, JSON.stringify(data, null, 2) + '\n');
    renameSync(`${file}.tmp`, file);
  };
  return {
    list: (status) => data.tasks.filter((t) => status === undefined || t.status === status),
    get: (id) => data.tasks.find((t) => t.id === id),
    create(fields) {
      const task = {
        id: data.nextId++,
        title: fields.title,
        status: fields.status ?? 'open',
        priority: fields.priority ?? DEFAULT_PRIORITY,
      };
      data.tasks.push(task);
      save();
      return task;
    },
    update(id, fields) {
      const task = data.tasks.find((t) => t.id === id);
      if (task === undefined) return undefined;
      Object.assign(task, fields);
      save();
      return task;
    },
    remove(id) {
      const before = data.tasks.length;
      data.tasks = data.tasks.filter((t) => t.id !== id);
      if (data.tasks.length === before) return false;
      save();
      return true;
    },
  };
}

// Seed data: a few tasks for a fresh store (node server/db/seed.js).
import { openStore } from './store.js';

export const SEED_TASKS = [
  { title: 'Write the plan', status: 'done' },
  { title: 'Build the API' },
  { title: 'Ship the client' },
];

export function seed(store) {
  if (store.list().length === 0) for (const task of SEED_TASKS) store.create(task);
  return store.list().length;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const count = seed(
    openStore(process.env.DATA_FILE ?? new URL('../../data/tasks.json', import.meta.url)),
  );
  console.log(JSON.stringify({ seeded: count }));
}

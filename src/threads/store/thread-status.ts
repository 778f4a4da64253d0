/**
 * A thread's statuses (THREADS.md §11), in their own module: the registry
 * needs the list, and the record's schema (zod) need not come with it.
 */
export const THREAD_STATUSES = [
  'created',
  'running',
  'completed',
  'failed',
  'error',
  'budget_denied',
  'cancelled',
  'killed',
  'interrupted',
  'continued',
] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];

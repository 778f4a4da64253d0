import type { RegistryDb, ThreadRow } from './registry-db.js';
import { treeLockPath } from './layout.js';
import { holderAlive, readTreeLock } from './tree-lock.js';

/** Statuses a thread writes itself, or is given, when it ends (THREADS.md §11). */
export const FINISHED_STATUSES: ReadonlySet<string> = new Set([
  'completed',
  'failed',
  'error',
  'budget_denied',
  'cancelled',
  'killed',
  'continued',
]);

/** True while a thread may still change: `created` or `running`. Pure. */
export function isLive(status: ThreadRow['status']): boolean {
  return status === 'created' || status === 'running';
}

/** True while a live process holds the tree's lock. */
export function treeOwnerAlive(projectRoot: string, treeId: string): boolean {
  const lock = readTreeLock(treeLockPath(projectRoot, treeId));
  return lock !== null && lock !== undefined && holderAlive(lock.holder);
}

/**
 * Mark `interrupted` every `running` thread whose tree lock is gone or held
 * by a dead process (THREADS.md §8); returns the ids it marked.
 */
export function markOrphansInterrupted(projectRoot: string, db: RegistryDb): string[] {
  const marked: string[] = [];
  for (const row of db.list({ status: 'running' })) {
    if (treeOwnerAlive(projectRoot, row.treeId)) continue;
    db.setStatus(row.threadId, 'interrupted');
    marked.push(row.threadId);
  }
  return marked;
}

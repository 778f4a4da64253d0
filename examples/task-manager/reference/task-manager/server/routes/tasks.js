// REST routes for /api/tasks (GET list ?status=, POST create) and
// /api/tasks/:id (GET, PATCH, DELETE). Handlers return [status, body].
import { STATUSES, parseTaskInput } from '../db/schema.js';

export function tasksRoute(store, method, parts, query, body) {
  if (parts.length === 0) {
    if (method === 'GET') {
      const status = query.get('status') ?? undefined;
      if (status !== undefined && !STATUSES.includes(status))
        return [400, { error: 'unknown status' }];
      return [200, { tasks: store.list(status) }];
    }
    if (method === 'POST') {
      const parsed = parseTaskInput(body);
      if (parsed.problems) return [400, { error: parsed.problems.join('; ') }];
      return [201, { task: store.create(parsed.task) }];
    }
    return [405, { error: 'method not allowed' }];
  }
  const id = Number(parts[0]);
  if (parts.length > 1 || !Number.isInteger(id)) return [404, { error: 'not found' }];
  if (method === 'GET') {
    const task = store.get(id);
    return task ? [200, { task }] : [404, { error: 'not found' }];
  }
  if (method === 'PATCH') {
    const parsed = parseTaskInput(body, { partial: true });
    if (parsed.problems) return [400, { error: parsed.problems.join('; ') }];
    const task = store.update(id, parsed.task);
    return task ? [200, { task }] : [404, { error: 'not found' }];
  }
  if (method === 'DELETE') return store.remove(id) ? [204, null] : [404, { error: 'not found' }];
  return [405, { error: 'method not allowed' }];
}

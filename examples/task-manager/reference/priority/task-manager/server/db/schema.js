// The data model: one record per task. The store file is {"version": 1, "tasks": [...]}.
export const SCHEMA_VERSION = 1;
export const STATUSES = ['open', 'done'];
export const PRIORITIES = ['low', 'medium', 'high'];
export const DEFAULT_PRIORITY = 'medium';
const FIELDS = ['title', 'status', 'priority'];

/** A task from client input, or a list of problems. */
export function parseTaskInput(input, { partial = false } = {}) {
  const problems = [];
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { problems: ['body must be a JSON object'] };
  const out = {};
  if ('title' in input || !partial) {
    if (typeof input.title !== 'string' || input.title.trim() === '' || input.title.length > 200)
      problems.push('title must be 1 to 200 characters');
    else out.title = input.title.trim();
  }
  if ('status' in input) {
    if (!STATUSES.includes(input.status))
      problems.push(`status must be one of ${STATUSES.join(', ')}`);
    else out.status = input.status;
  }
  if ('priority' in input) {
    if (!PRIORITIES.includes(input.priority))
      problems.push(`priority must be one of ${PRIORITIES.join(', ')}`);
    else out.priority = input.priority;
  }
  for (const key of Object.keys(input))
    if (!FIELDS.includes(key)) problems.push(`unknown field ${key}`);
  return problems.length > 0 ? { problems } : { task: out };
}

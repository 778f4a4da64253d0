// The client: a list with a form, complete and delete buttons, and a status filter.
import { createApi } from './api.js';

const api = createApi();
let filter = '';

export function renderTask(task) {
  const done = task.status === 'done';
  const priority = escapeHtml(task.priority ?? 'medium');
  return (
    `<li data-id="${task.id}" class="${done ? 'done' : ''}">${escapeHtml(task.title)}` +
    ` <span class="priority priority-${priority}">${priority}</span>` +
    (done ? '' : ` <button data-action="complete">Done</button>`) +
    ` <button data-action="delete">Delete</button></li>`
  );
}

export function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function refresh() {
  const tasks = await api.list(filter || undefined);
  document.querySelector('#task-list').innerHTML = tasks.map(renderTask).join('');
}

if (typeof document !== 'undefined') {
  document.querySelector('#task-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    await api.create(event.target.title.value, event.target.priority.value);
    event.target.reset();
    await refresh();
  });
  document.querySelector('#filter').addEventListener('click', async (event) => {
    if (event.target.dataset.status === undefined) return;
    filter = event.target.dataset.status;
    await refresh();
  });
  document.querySelector('#task-list').addEventListener('click', async (event) => {
    const id = Number(event.target.closest('li')?.dataset.id);
    if (event.target.dataset.action === 'complete') await api.complete(id);
    if (event.target.dataset.action === 'delete') await api.remove(id);
    await refresh();
  });
  refresh();
}

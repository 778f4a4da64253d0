// The API client: one function per endpoint, over fetch.
export function createApi(base = '', fetchFn = globalThis.fetch) {
  async function call(method, path, body) {
    const res = await fetchFn(`${base}/api/tasks${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status === 204) return null;
    const data = await res.json();
    if (!res.ok) throw new Error(data.error ?? `HTTP ${res.status}`);
    return data;
  }
  return {
    list: (status) =>
      call('GET', status ? `?status=${encodeURIComponent(status)}` : '').then((d) => d.tasks),
    // Without a priority the server picks its default.
    create: (title, priority) =>
      call('POST', '', priority === undefined ? { title } : { title, priority }).then(
        (d) => d.task,
      ),
    complete: (id) => call('PATCH', `/${id}`, { status: 'done' }).then((d) => d.task),
    setPriority: (id, priority) => call('PATCH', `/${id}`, { priority }).then((d) => d.task),
    remove: (id) => call('DELETE', `/${id}`),
  };
}

// Entry point: serve the API and the client on PORT (default 3000), on loopback.
import { createApp } from './app.js';
import { openStore } from './db/store.js';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const store = openStore(process.env.DATA_FILE ?? new URL('../data/tasks.json', import.meta.url));
const server = createApp(store).listen(port, host, () => {
  const { port: bound } = server.address();
  console.log(JSON.stringify({ url: `http://${host}:${bound}/` }));
});
for (const signal of ['SIGTERM', 'SIGINT'])
  process.on(signal, () => server.close(() => process.exit(0)));

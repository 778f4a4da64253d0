// The HTTP app: JSON API under /api/tasks, the client's static files elsewhere
// (from dist/ once built, else client/).
import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tasksRoute } from './routes/tasks.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
const MAX_BODY = 64 * 1024;

function readBody(req) {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      text += chunk;
      if (text.length > MAX_BODY) reject(new Error('body too large'));
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

function sendJson(res, status, body) {
  res.writeHead(status, body === null ? {} : { 'content-type': 'application/json' });
  res.end(body === null ? undefined : JSON.stringify(body));
}

function serveStatic(res, pathname) {
  const base = existsSync(join(ROOT, 'dist', 'index.html'))
    ? join(ROOT, 'dist')
    : join(ROOT, 'client');
  const file = normalize(join(base, pathname === '/' ? 'index.html' : pathname));
  if (!file.startsWith(base) || !existsSync(file))
    return sendJson(res, 404, { error: 'not found' });
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
  res.end(readFileSync(file));
}

export function createApp(store) {
  return createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] !== 'api') return serveStatic(res, url.pathname);
    if (parts[1] !== 'tasks') return sendJson(res, 404, { error: 'not found' });
    let body;
    try {
      const text = await readBody(req);
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      return sendJson(res, 400, { error: 'body must be JSON' });
    }
    const [status, payload] = tasksRoute(store, req.method, parts.slice(2), url.searchParams, body);
    sendJson(res, status, payload);
  });
}

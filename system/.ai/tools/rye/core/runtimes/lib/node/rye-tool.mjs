// Helpers for Rye tools run by the node runtime, imported as '@rye/runtime':
//
//   import { readParams, projectPath, respond, fail } from '@rye/runtime';
//   const params = readParams();
//   respond({ success: true, greeting: `hello ${params.name}` });
//
// The runtime starts a tool as `node tool.mjs --params <json> --project-path <dir>`;
// whatever the tool prints on stdout is its result and must be one JSON document.

/** The value after `flag` in the tool's arguments (`--flag value` or `--flag=value`), or undefined. */
function argValue(flag, argv) {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === flag) {
      if (i + 1 >= argv.length) throw new Error(`Cannot read ${flag}: it has no value`);
      return argv[i + 1];
    }
    if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
  }
  return undefined;
}

/**
 * The tool's parameters: the JSON object passed as `--params <json>`, or {}
 * when there is none.
 *
 * @throws Error when the value is not valid JSON or not a JSON object.
 */
export function readParams(argv = process.argv.slice(2)) {
  const text = argValue('--params', argv);
  if (text === undefined) return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`Cannot read --params: not valid JSON (${error.message})`, { cause: error });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error('Cannot read --params: expected a JSON object');
  }
  return value;
}

/** The project path passed as `--project-path <dir>`, or null when there is none. */
export function projectPath(argv = process.argv.slice(2)) {
  return argValue('--project-path', argv) ?? null;
}

/** Print the tool's result as one line of JSON on stdout (undefined prints {}). */
export function respond(value) {
  process.stdout.write(`${JSON.stringify(value === undefined ? {} : value)}\n`);
}

/**
 * Report a failure: prints {"success": false, "error": message, ...extra} on
 * stdout and sets the exit code to 1 (the process still ends normally, so
 * output is flushed). `extra` cannot override `success` or `error`.
 */
export function fail(message, extra = {}) {
  const error = message instanceof Error ? message.message : String(message);
  respond(Object.assign({ success: false, error }, extra, { success: false, error }));
  process.exitCode = 1;
}

// The operation channel (fd 3): a tool whose signed permissions declare `rye:`
// patterns reaches rye through it, never with a token. Each call writes one
// JSON line {"id", "op", "input"} and resolves with the answer line of the same
// id, minus the id: {status: "success", item_id, data} or {status: "error",
// error: {code, message, hint}}. A refusal is such a result, not an exception.
//
//   import { rye, respond } from '@rye/runtime';
//   const doc = await rye.load({ item_type: 'knowledge', item_id: 'apps/notes' });
//   if (doc.status === 'success') respond({ text: doc.data.content });

/** The open channel, once a call has opened it. */
let channel;

/** Open fd 3 (or whatever RYE_CHANNEL_FD names) on first use; node:net is loaded only then. */
async function openChannel() {
  if (channel !== undefined) return channel;
  const text = process.env.RYE_CHANNEL_FD;
  const fd = Number(text);
  if (text === undefined || text === '' || !Number.isSafeInteger(fd) || fd < 0) {
    throw new Error(
      'Cannot reach rye: RYE_CHANNEL_FD is not set (this tool declares no rye: permissions, or runs outside rye)',
    );
  }
  const { Socket } = await import('node:net');
  if (channel !== undefined) return channel;
  const socket = new Socket({ fd, readable: true, writable: true });
  const pending = new Map();
  let nextId = 1;
  let buffered = '';
  let closed = null;
  const failAll = (error) => {
    closed = error;
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => {
    buffered += chunk;
    for (let at = buffered.indexOf('\n'); at !== -1; at = buffered.indexOf('\n')) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      let answer;
      try {
        answer = JSON.parse(line);
      } catch {
        failAll(new Error('Cannot read the rye channel: an answer is not JSON'));
        socket.destroy();
        return;
      }
      const { id, ...result } = answer;
      const waiting = pending.get(id);
      if (waiting !== undefined) {
        pending.delete(id);
        waiting.resolve(result);
      } else if (id === null) {
        // Only a limit (a request over 1 MiB, too many requests) answers without an id;
        // the channel closes after it.
        const error = new Error(`rye refused the channel: ${result.error?.message ?? 'closed'}`);
        error.code = result.error?.code;
        failAll(error);
      }
    }
    if (pending.size === 0) socket.unref();
  });
  socket.on('error', (error) =>
    failAll(new Error(`Cannot use the rye channel: ${error.message}`, { cause: error })),
  );
  socket.on('close', () =>
    failAll(closed ?? new Error('Cannot use the rye channel: it is closed')),
  );
  // An idle channel does not keep the tool running.
  socket.unref();
  channel = {
    request(op, input) {
      if (closed !== null) return Promise.reject(closed);
      const id = nextId;
      nextId += 1;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        socket.ref();
        socket.write(`${JSON.stringify({ id, op, input: input ?? {} })}\n`);
      });
    },
  };
  return channel;
}

async function call(op, input) {
  return (await openChannel()).request(op, input);
}

/**
 * The four operations over the channel, each with the input schema of the
 * model's tool of the same name: `execute({item_type: 'tool', item_id,
 * parameters})` (never a directive), `search({query, item_type?, space?,
 * limit?})`, `load({item_type, item_id, source?})`, `sign({item_type,
 * item_id, source?})`. Each resolves with the operation's result.
 *
 * @throws Error when RYE_CHANNEL_FD is unset, or the channel fails or closes.
 */
export const rye = Object.freeze({
  execute: (input) => call('execute', input),
  search: (input) => call('search', input),
  load: (input) => call('load', input),
  sign: (input) => call('sign', input),
});

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

import type { TempSpaces } from './temp-space.js';

const THREADS = '.ai/tools/apps/agent/threads';

/** Helper modules of the seed's threads layout (plain Python, no tool metadata). */
const THREAD_HELPERS: Record<string, string> = {
  '__init__.py': '',
  'safety_harness.py': 'def check():\n    return "harness-ok"\n',
  'runner.py': 'def run():\n    return "runner"\n',
  'orchestrator.py': 'def plan():\n    return ["wave_1"]\n',
  'adapters/__init__.py': '',
  'adapters/tool_dispatcher.py': 'def dispatch(name):\n    return "dispatched:" + name\n',
  'events/__init__.py': '',
  'events/event_emitter.py': 'EVENTS = []\n',
  'loaders/__init__.py': '',
  'loaders/config_loader.py': 'def load():\n    return {}\n',
  'loaders/condition_evaluator.py': 'def evaluate(x):\n    return bool(x)\n',
  'loaders/hooks_loader.py': 'def hooks():\n    return ["after_complete"]\n',
  'loaders/resilience_loader.py': 'RETRIES = 3\n',
  'persistence/__init__.py': '',
  'persistence/transcript.py': 'def append(event):\n    return event\n',
  'persistence/thread_registry.py': 'REGISTRY = {}\n',
  'persistence/budgets.py': 'MAX_SPEND = 3.0\n',
  'thread_config.yaml': 'max_turns: 30\nmax_tokens: 80000\n',
};

/** The entry point: imports a sibling package, loads the harness at run time, leaves a side effect (in the project's markers/, which it may write). */
const THREAD_DIRECTIVE = `"""Run a directive as a thread (test fixture of seed 000)."""
import json
import sys

from module_loader import load_module
from loaders import hooks_loader
from adapters.tool_dispatcher import dispatch

__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "apps/agent/threads"
__tool_description__ = "Thread directive entry point"
__permissions__ = {"write": ["markers"]}

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {"marker": {"type": "string"}, "directive": {"type": "string", "default": "demo"}},
    "required": ["marker"],
}


def main():
    params = json.loads(sys.argv[sys.argv.index("--params") + 1])
    harness = load_module("safety_harness")
    with open(params["marker"], "w") as f:
        f.write("ran")
    print(json.dumps({"success": True, "harness": harness.check(), "hooks": hooks_loader.hooks(),
                      "dispatch": dispatch(params["directive"]), "argv_params": params}))


if __name__ == "__main__":
    main()
`;

/** Write the seed's multi-file Python tool; returns its id. `extra` adds padding helpers. */
export function writeThreadsTool(s: TempSpaces, extra = 0): string {
  for (const [path, text] of Object.entries(THREAD_HELPERS)) s.write(`${THREADS}/${path}`, text);
  for (let i = 0; i < extra; i += 1)
    s.write(`${THREADS}/persistence/extra_${i}.py`, `VALUE_${i} = ${i}\n`);
  s.write(`${THREADS}/thread_directive.py`, THREAD_DIRECTIVE);
  s.write(`${THREADS}/__pycache__/runner.cpython-311.pyc`, Buffer.from([0, 1, 2, 3]));
  return 'apps/agent/threads/thread_directive';
}

export const THREADS_DIR = THREADS;

const TS_DIR = '.ai/tools/apps/ts-demo';

/** A multi-file TypeScript tool with package.json, a sibling module and its own node_modules dependency; it may write the project's markers/. */
export function writeTsTool(s: TempSpaces): string {
  s.write(
    `${TS_DIR}/package.json`,
    JSON.stringify({ name: 'ts-demo', private: true, type: 'module' }, null, 2) + '\n',
  );
  s.write(
    `${TS_DIR}/main.ts`,
    `import { writeFileSync } from 'node:fs';
import { readParams, respond } from '@rye/runtime';
import { shout } from './lib/format.ts';
import pad from 'tiny-pad';

export const __version__ = '1.0.0';
export const __tool_type__ = 'typescript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'apps/ts-demo';
export const __tool_description__ = 'TypeScript demo tool';
export const __permissions__ = { write: ['markers'] };
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: { marker: { type: 'string' }, word: { type: 'string' } },
  required: ['marker', 'word'],
} as const;

interface Params { marker: string; word: string }
const params = readParams() as Params;
writeFileSync(params.marker, 'ran');
respond({ success: true, word: pad(shout(params.word)), cwd: process.cwd() });
`,
  );
  s.write(
    `${TS_DIR}/lib/format.ts`,
    `export function shout(text: string): string {\n  return text.toUpperCase() + '!';\n}\n`,
  );
  s.write(
    `${TS_DIR}/node_modules/tiny-pad/package.json`,
    JSON.stringify({ name: 'tiny-pad', version: '1.0.0', type: 'module', exports: './index.js' }) +
      '\n',
  );
  s.write(
    `${TS_DIR}/node_modules/tiny-pad/index.js`,
    `export default function pad(s) {\n  return '[' + s + ']';\n}\n`,
  );
  return 'apps/ts-demo/main';
}

export const TS_TOOL_DIR = TS_DIR;

// Issue 29 benchmarks: what the bwrap sandbox adds to a tool run. A trivial
// node tool and a trivial Python tool, each run through the library's
// execute() with the sandbox on and off, interleaved in the same run (the
// same process, the same warm caches): execute.sandbox_overhead_ms is the p50
// difference, execute.sandboxed_vs_bare the node tool's p50 ratio.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { loadSpaceTrust } from '../dist/src/index.js';
import { execute } from '../dist/src/executor/index.js';
import { signedSpaces } from './signed-spaces.mjs';
import { median, report } from './util.mjs';

const RUNS = 25;

const TOOLS = {
  'b/node_tool.mjs': [
    "export const __version__ = '1.0.0';",
    "export const __tool_type__ = 'javascript';",
    "export const __executor_id__ = 'rye/core/runtimes/node_runtime';",
    "export const __category__ = 'b';",
    "export const __tool_description__ = 'trivial';",
    "process.stdout.write('{}');",
    '',
  ].join('\n'),
  'b/py_tool.py': [
    '__version__ = "1.0.0"',
    '__tool_type__ = "python"',
    '__executor_id__ = "rye/core/runtimes/python_script_runtime"',
    '__category__ = "b"',
    '__tool_description__ = "trivial"',
    'print("{}")',
    '',
  ].join('\n'),
};

export async function run() {
  // The real interpreter, not a version-manager shim: its start-up noise would drown the overhead.
  const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {
    encoding: 'utf8',
  }).stdout.trim();
  const box = signedSpaces(
    'sandbox',
    Object.fromEntries(Object.entries(TOOLS).map(([rel, text]) => [`tools/${rel}`, text])),
    { RYE_PYTHON: python },
  );
  const { spaces } = box;
  // NODE_EXTRA_CA_CERTS, when set, costs every node start a parse of the file
  // (~40 ms here): the sandbox passes no such name, so bare runs go without it too.
  const env = { ...box.env };
  delete env.NODE_EXTRA_CA_CERTS;
  try {
    const { trust } = await loadSpaceTrust(spaces);
    const once = async (toolId, mode) => {
      const start = performance.now();
      const result = await execute({ spaces, toolId, env, trust, sandbox: { mode } });
      if (result.status !== 'success')
        throw new Error(`${toolId} (${mode}): ${JSON.stringify(result.error)}`);
      return performance.now() - start;
    };
    const figures = {};
    for (const toolId of ['b/node_tool', 'b/py_tool']) {
      await once(toolId, 'off');
      await once(toolId, 'bwrap');
      const on = [];
      const off = [];
      for (let i = 0; i < RUNS; i += 1) {
        off.push(await once(toolId, 'off'));
        on.push(await once(toolId, 'bwrap'));
      }
      figures[toolId] = { on: median(on), off: median(off) };
    }
    const node = figures['b/node_tool'];
    const py = figures['b/py_tool'];
    const overhead = (node.on - node.off + (py.on - py.off)) / 2;
    // As root each sandbox also enters a pids cgroup of its own (the kernel does not
    // apply RLIMIT_NPROC to root); on cgroup v1 the move costs ~10 ms. The node tool
    // once more without it, as a user who is not root runs it.
    let withoutGroup = null;
    if (process.getuid?.() === 0) {
      const getuid = process.getuid;
      process.getuid = () => 1000;
      try {
        const on = [];
        const off = [];
        for (let i = 0; i < RUNS; i += 1) {
          off.push(await once('b/node_tool', 'off'));
          on.push(await once('b/node_tool', 'bwrap'));
        }
        withoutGroup = median(on) - median(off);
      } finally {
        process.getuid = getuid;
      }
    }
    report('execute.sandbox_overhead_ms', overhead, 'ms', {
      node_ms: Number((node.on - node.off).toFixed(2)),
      python_ms: Number((py.on - py.off).toFixed(2)),
      ...(withoutGroup === null
        ? {}
        : { node_ms_without_pids_cgroup: Number(withoutGroup.toFixed(2)) }),
      goal: '<= 15',
    });
    report('execute.sandboxed_vs_bare', node.on / node.off, 'ratio', {
      sandboxed_ms: Number(node.on.toFixed(2)),
      bare_ms: Number(node.off.toFixed(2)),
      goal: '<= 1.25',
    });
  } finally {
    box.remove();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeTempSpaces } from '../helpers/temp-space.js';

/** The source (unsigned) runtime library: python does not read signature lines. */
const LIB_PYTHON = fileURLToPath(
  new URL('../../system/.ai/tools/rye/core/runtimes/lib/python', import.meta.url),
);

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  json<T = Record<string, unknown>>(): T;
}

/** A throwaway tool folder; `run` executes one of its files with python3. */
function toolFolder(files: Record<string, string>) {
  const s = makeTempSpaces();
  const dir = join(s.root, 'tool');
  for (const [rel, text] of Object.entries(files)) s.write(rel, text, dir);
  const run = (script: string, env: Record<string, string> = {}): Run => {
    const base = { ...process.env };
    delete base['RYE_VERIFIED_MANIFEST'];
    delete base['RYE_ANCHOR_PATH'];
    const result = spawnSync('python3', [join(dir, script)], {
      cwd: dir,
      encoding: 'utf8',
      // No __pycache__ in the source tree (or the temp tool) from test runs.
      env: { ...base, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: LIB_PYTHON, ...env },
    });
    if (result.error) throw result.error;
    return {
      code: result.status,
      stdout: result.stdout,
      stderr: result.stderr,
      json: <T>() => JSON.parse(result.stdout) as T,
    };
  };
  const manifest = (entries: Record<string, string>): string =>
    s.write('verified.json', JSON.stringify({ files: entries }), s.root);
  return { dir, run, manifest, write: (rel: string, text: string) => s.write(rel, text, dir) };
}

const sha256 = (path: string): string =>
  createHash('sha256').update(readFileSync(path)).digest('hex');

/** Python that tries each name and prints {name: "ok" | "ImportError: …"}. */
const TRY_LOADS = (names: string[], prelude = ''): string => `import json
from module_loader import load_module
${prelude}
out = {}
for name in ${JSON.stringify(names)}:
    try:
        load_module(name)
        out[name] = "ok"
    except ImportError as error:
        out[name] = "ImportError: " + str(error)
print(json.dumps(out))
`;

describe('module_loader.load_module()', () => {
  it('loads a sibling from the calling file’s folder and shares one module per name', () => {
    const t = toolFolder({
      'helpers.py': 'VALUE = "helpers"\n',
      'main.py': `import json, sys
from module_loader import load_module
first = load_module("helpers")
print(json.dumps({
    "value": first.VALUE,
    "again": load_module("helpers") is first,
    "by_file_name": load_module("helpers.py") is first,
    "registered": sys.modules["helpers"] is first,
}))
`,
    });
    const res = t.run('main.py');
    expect(res.stderr).toBe('');
    expect(res.json()).toEqual({
      value: 'helpers',
      again: true,
      by_file_name: true,
      registered: true,
    });
  });

  it('loads a nested package module by slash or dotted name, parents and relative imports included', () => {
    const t = toolFolder({
      'pkg/__init__.py': 'NAME = "pkg"\n',
      'pkg/sub/mod.py': 'from . import other\nVALUE = "mod+" + other.X\n',
      'pkg/sub/other.py': 'X = "other"\n',
      'main.py': `import json, sys
from module_loader import load_module
mod = load_module("pkg/sub/mod")
print(json.dumps({
    "value": mod.VALUE,
    "same": load_module("pkg.sub.mod") is mod,
    "parent": sys.modules["pkg"].NAME,
    "attribute": sys.modules["pkg.sub"].mod is mod,
}))
`,
    });
    const res = t.run('main.py');
    expect(res.stderr).toBe('');
    expect(res.json()).toEqual({ value: 'mod+other', same: true, parent: 'pkg', attribute: true });
  });

  it('resolves names from RYE_ANCHOR_PATH when it is set, not from the caller’s folder', () => {
    const t = toolFolder({
      'loaders/hooks.py': 'VALUE = "hooks"\n',
      'adapters/dispatch.py': `from module_loader import load_module
print(load_module("loaders/hooks").VALUE)
`,
    });
    expect(t.run('adapters/dispatch.py').code).not.toBe(0);
    const res = t.run('adapters/dispatch.py', { RYE_ANCHOR_PATH: t.dir });
    expect(res.stderr).toBe('');
    expect(res.stdout.trim()).toBe('hooks');
  });

  it('refuses names containing "..", absolute paths, and names another module already holds', () => {
    const t = toolFolder({
      'helpers.py': 'VALUE = 1\n',
      'taken.py': 'VALUE = "tool"\n',
      'main.py': TRY_LOADS(
        ['../outside', 'pkg/../helpers', 'a..b', '/etc/passwd', 'taken', 'missing'],
        // Another module already holds the name "taken".
        `import sys, types
sys.modules["taken"] = types.ModuleType("taken")
sys.modules["taken"].__file__ = "/elsewhere/taken.py"`,
      ),
    });
    t.write('../outside.py', 'raise SystemExit("must never run")\n');
    const out = t.run('main.py').json<Record<string, string>>();
    expect(out['../outside']).toMatch(/ImportError: .*'\.\.' are refused/);
    expect(out['pkg/../helpers']).toMatch(/'\.\.' are refused/);
    expect(out['a..b']).toMatch(/'\.\.' are refused/);
    expect(out['/etc/passwd']).toMatch(/absolute paths are refused/);
    expect(out['taken']).toMatch(/already taken by the module from \/elsewhere\/taken\.py/);
    expect(out['missing']).toMatch(/no missing\.py or missing\/__init__\.py/);
  });

  describe('with RYE_VERIFIED_MANIFEST', () => {
    const files = {
      'good.py': 'VALUE = "good"\n',
      'changed.py': 'VALUE = "original"\n',
      'unlisted.py': 'VALUE = "unlisted"\n',
      'main.py': TRY_LOADS(['good', 'changed', 'unlisted']),
    };

    it('loads listed files whose bytes match and refuses changed or unlisted ones, naming the file', () => {
      const t = toolFolder(files);
      const good = join(t.dir, 'good.py');
      const changed = join(t.dir, 'changed.py');
      const verified = sha256(changed);
      t.write('changed.py', 'VALUE = "tampered"\n');
      const manifest = t.manifest({ [good]: sha256(good), [changed]: verified });
      const res = t.run('main.py', { RYE_VERIFIED_MANIFEST: manifest });
      const out = res.json<Record<string, string>>();
      expect(out['good']).toBe('ok');
      expect(out['changed']).toContain(`Cannot load ${changed}: its content changed`);
      expect(out['unlisted']).toContain(
        `Cannot load ${join(t.dir, 'unlisted.py')}: it is not in the verified manifest`,
      );
    });

    it('fails closed when the manifest cannot be read', () => {
      const t = toolFolder(files);
      const res = t.run('main.py', { RYE_VERIFIED_MANIFEST: join(t.dir, 'no-such.json') });
      const out = res.json<Record<string, string>>();
      expect(out['good']).toMatch(/Cannot read the verified manifest/);
    });

    it('executes exactly the bytes it hashed, even if the file is swapped right after the read', () => {
      const t = toolFolder({
        'target.py': 'VALUE = "verified"\n',
        // Wraps the loader's open(): the moment the file has been read, an
        // attacker replaces it. A loader that read twice would run the swap.
        'main.py': `import io, json, os
import module_loader
from module_loader import load_module

here = os.path.dirname(os.path.realpath(__file__))
target = os.path.join(here, "target.py")
real_open = open

class Swapping(io.BufferedReader):
    def read(self, *args):
        data = super().read(*args)
        with real_open(target, "w") as handle:
            handle.write('VALUE = "swapped"\\n')
        return data

def spying_open(path, mode="r", *args, **kwargs):
    handle = real_open(path, mode, *args, **kwargs)
    if os.path.realpath(path) == target and "b" in mode:
        return Swapping(handle.detach())
    return handle

module_loader.open = spying_open
mod = load_module("target")
with real_open(target) as handle:
    on_disk = handle.read().strip()
print(json.dumps({"ran": mod.VALUE, "on_disk": on_disk}))
`,
      });
      const target = join(t.dir, 'target.py');
      const manifest = t.manifest({ [target]: sha256(target) });
      const res = t.run('main.py', { RYE_VERIFIED_MANIFEST: manifest });
      expect(res.stderr).toBe('');
      expect(res.json()).toEqual({ ran: 'verified', on_disk: 'VALUE = "swapped"' });
    });
  });
});

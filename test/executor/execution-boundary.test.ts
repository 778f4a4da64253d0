import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  rmSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBundle } from '../../src/bundle/index.js';
import { execute, type ExecuteResult } from '../../src/executor/index.js';
import { readSigner } from '../../src/integrity/index.js';
import { keyDir } from '../../src/items/index.js';
import { refusal } from '../helpers/refusal.js';
import { makeExecProject, type ExecProject } from '../helpers/exec-project.js';

// Attacks on the execution boundary (issue "Run exactly what was verified"):
// each plants something the interpreter would load from outside what was
// verified; the planted code writes a marker, and the marker must stay absent.
// The marker is in the project's markers/, which each tool declares in `write`:
// had the planted code run, it could have written it (the last test says where not).

const run = (p: ExecProject, toolId: string, params: unknown = {}): Promise<ExecuteResult> =>
  execute({ spaces: p.spaces, toolId, params, env: p.env });

const py = (category: string, body: string): string => `import json, sys
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "${category}"
__tool_description__ = "boundary test tool"
__permissions__ = {"write": ["markers"]}
${body}
`;

const sh = (category: string, body: string): string =>
  `# __version__ = "1.0.0"\n# __tool_type__ = "shell"\n# __executor_id__ = "rye/core/runtimes/shell_runtime"\n# __category__ = "${category}"\n# __tool_description__ = "boundary test tool"\n# __permissions__ = {"write": ["markers"]}\n${body}\n`;

/** The project's markers/ folder (made here, so a run with the sandbox off can write it too). */
const markerOf = (p: ExecProject): string => {
  mkdirSync(join(p.project, 'markers'), { recursive: true });
  return join(p.project, 'markers', 'marker');
};

/** The operator's `sandbox: off`, or the default (on). */
const project = (sandbox: 'on' | 'off'): Promise<ExecProject> =>
  makeExecProject(sandbox === 'off' ? { sandbox: 'off' } : {});

// Run both ways: the sandbox masks .ai/ and drops project folders from PATH,
// so the executor's own guard must hold without the sandbox too.
const BOTH = ['on', 'off'] as const;

const evilPy = (marker: string): string => `open(${JSON.stringify(marker)}, "w").write("pwned")\n`;

describe('a tool folder never supplies an unverified module', () => {
  it.each(BOTH)(
    'a single-file tool cannot import an unsigned sibling, and a planted json.py does not shadow the standard library (sandbox %s)',
    async (sandbox) => {
      const p = await project(sandbox);
      const marker = markerOf(p);
      p.write(
        '.ai/tools/apps/solo/tool.py',
        py(
          'apps/solo',
          `try:
    import helper
    found = True
except ImportError:
    found = False
print(json.dumps({"success": True, "found": found, "json": json.__file__}))`,
        ),
      );
      await p.sign('tool', 'apps/solo/tool');
      p.write('.ai/tools/apps/solo/helper.py', evilPy(marker));
      p.write('.ai/tools/apps/solo/json.py', evilPy(marker));
      const result = await run(p, 'apps/solo/tool');
      expect(result.status, JSON.stringify(result)).toBe('success');
      expect(result.data).toMatchObject({ found: false });
      expect(String((result.data as { json: string }).json)).not.toContain(p.project);
      expect(existsSync(marker)).toBe(false);
    },
  );

  it.each(BOTH)(
    'sourceless bytecode (.pyc, sitecustomize.pyc) beside a multi-file tool is not there to load (sandbox %s)',
    async (sandbox) => {
      const p = await project(sandbox);
      const marker = markerOf(p);
      p.write('.ai/tools/apps/multi/__init__.py', '');
      p.write(
        '.ai/tools/apps/multi/tool.py',
        py(
          'apps/multi',
          `try:
    import helper
    found = True
except ImportError:
    found = False
print(json.dumps({"success": True, "found": found}))`,
        ),
      );
      await p.sign('tool', 'apps/multi/**');
      const evil = p.write('evil_src.py', evilPy(marker), p.root);
      for (const name of ['helper.pyc', 'sitecustomize.pyc']) {
        const cfile = join(p.project, '.ai/tools/apps/multi', name);
        execFileSync('python3', [
          '-c',
          'import py_compile,sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2])',
          evil,
          cfile,
        ]);
      }
      // A C extension would win over a signed .py of the same name: it must be absent too.
      p.write('.ai/tools/apps/multi/tool.cpython-311-x86_64-linux-gnu.so', 'not really ELF');
      const result = await run(p, 'apps/multi/tool');
      expect(result.status, JSON.stringify(result)).toBe('success');
      expect(result.data).toMatchObject({ found: false });
      expect(existsSync(marker)).toBe(false);
      const plan = (
        await execute({ spaces: p.spaces, toolId: 'apps/multi/tool', env: p.env, dryRun: true })
      ).plan;
      const snapshot = join(plan?.snapshot ?? '', 's');
      expect(readdirSync(snapshot).sort()).toEqual(['__init__.py', 'tool.py']);
    },
  );

  it.each(BOTH)(
    'an extensionless executable in a shell tool’s bin/ is not on its PATH (sandbox %s)',
    async (sandbox) => {
      const p = await project(sandbox);
      const marker = markerOf(p);
      p.write(
        '.ai/tools/apps/shtool/run.sh',
        sh('apps/shtool', `helper 2>/dev/null\necho '{"success": true}'`),
      );
      await p.sign('tool', 'apps/shtool/run');
      const helper = p.write('.ai/tools/apps/shtool/bin/helper', `#!/bin/sh\ntouch ${marker}\n`);
      chmodSync(helper, 0o755);
      const result = await run(p, 'apps/shtool/run');
      expect(result.status, JSON.stringify(result)).toBe('success');
      expect(existsSync(marker)).toBe(false);
    },
  );

  it('a node_modules link leading out of the tool folder is refused (INTEGRITY_SYMLINK_ESCAPE)', async () => {
    const p = await makeExecProject();
    p.write('.ai/tools/apps/nodeapp/package.json', '{"type": "module"}\n');
    p.write(
      '.ai/tools/apps/nodeapp/tool.mjs',
      `export const __version__ = '1.0.0';
export const __tool_type__ = 'javascript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'apps/nodeapp';
export const __tool_description__ = 'boundary test tool';
console.log('{"success": true}');
`,
    );
    await p.sign('tool', 'apps/nodeapp/**');
    p.write('outside/pkg/index.js', 'export default 1;\n', p.root);
    symlinkSync(join(p.root, 'outside'), join(p.project, '.ai/tools/apps/nodeapp/node_modules'));
    const refused = await refusal(run(p, 'apps/nodeapp/tool'));
    expect(refused.code).toBe('INTEGRITY_SYMLINK_ESCAPE');
  });
});

describe('loader configuration comes from rye, not from the project', () => {
  it('a project tsconfig.json whose paths redirect @rye/runtime is not read', async () => {
    const p = await makeExecProject();
    const marker = markerOf(p);
    p.write(
      'tsconfig.json',
      JSON.stringify({
        compilerOptions: { baseUrl: '.', paths: { '@rye/runtime': ['./evil.ts'] } },
      }),
    );
    p.write(
      'evil.ts',
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'pwned');\nexport const respond = (v: unknown) => console.log(JSON.stringify(v));\n`,
    );
    p.write(
      '.ai/tools/apps/tsx/tool.ts',
      `import { respond } from '@rye/runtime';
export const __version__ = '1.0.0';
export const __tool_type__ = 'typescript';
export const __executor_id__ = 'rye/core/runtimes/node_runtime';
export const __category__ = 'apps/tsx';
export const __tool_description__ = 'boundary test tool';
export const __permissions__ = { write: ['markers'] };
respond({ success: true });
`,
    );
    await p.sign('tool', 'apps/tsx/tool');
    const result = await run(p, 'apps/tsx/tool');
    expect(result.status, JSON.stringify(result)).toBe('success');
    expect(existsSync(marker)).toBe(false);
  });

  it('no bytecode cache is read or written for tool code', async () => {
    const p = await makeExecProject();
    p.write(
      '.ai/tools/apps/bc/tool.py',
      py(
        'apps/bc',
        `print(json.dumps({"success": True, "prefix": sys.pycache_prefix, "dont_write": sys.flags.dont_write_bytecode}))`,
      ),
    );
    await p.sign('tool', 'apps/bc/tool');
    const result = await run(p, 'apps/bc/tool');
    expect(result.data).toMatchObject({ success: true, prefix: null, dont_write: 1 });
  });
});

describe('the bytes that run are the bytes that were hashed', () => {
  it('a lone CR (hashed as a newline) cannot fold a signed guard line into a comment for /bin/sh', async () => {
    const p = await makeExecProject();
    const marker = markerOf(p);
    const path = p.write(
      '.ai/tools/apps/guard/run.sh',
      sh(
        'apps/guard',
        `# the guard below stops here\necho '{"success": true}'; exit 0\ntouch ${marker}`,
      ),
    );
    await p.sign('tool', 'apps/guard/run');
    // Same hash (CR normalises to LF), but /bin/sh would read the guard as part of the comment.
    const text = readFileSync(path, 'utf8').replace('stops here\n', 'stops here\r');
    writeFileSync(path, text);
    const result = await run(p, 'apps/guard/run');
    expect(result.status, JSON.stringify(result)).toBe('success');
    expect(existsSync(marker)).toBe(false);
  });

  it('a shebang (not hashed) carrying a coding cookie does not change how Python decodes the signed text', async () => {
    const p = await makeExecProject();
    const marker = markerOf(p);
    const path = p.write(
      '.ai/tools/apps/cookie/tool.py',
      py(
        'apps/cookie',
        `# harmless note +AAo-open(${JSON.stringify(marker)}, "w").write("pwned")\nprint(json.dumps({"success": True}))`,
      ),
    );
    await p.sign('tool', 'apps/cookie/tool');
    // The signature stays valid on line 2 after a shebang; under utf-7 the comment would become code.
    writeFileSync(
      path,
      '#!/usr/bin/env python3 -*- coding: utf-7 -*-\n' + readFileSync(path, 'utf8'),
    );
    const result = await run(p, 'apps/cookie/tool');
    expect(result.status, JSON.stringify(result)).toBe('success');
    expect(existsSync(marker)).toBe(false);
  });

  it('the snapshot is read-only and keeps the verified bytes after the source changes', async () => {
    const p = await makeExecProject();
    const path = p.write(
      '.ai/tools/apps/snap/tool.py',
      py('apps/snap', 'print(json.dumps({"success": True}))'),
    );
    await p.sign('tool', 'apps/snap/tool');
    const first = await run(p, 'apps/snap/tool');
    expect(first.status).toBe('success');
    const plan = (
      await execute({ spaces: p.spaces, toolId: 'apps/snap/tool', env: p.env, dryRun: true })
    ).plan;
    const copy = join(plan?.snapshot ?? '', 't', 'tool.py');
    const before = readFileSync(copy, 'utf8');
    expect(before).toContain('print(json.dumps({"success": True}))');
    expect(before).not.toContain('rye:signed');
    writeFileSync(path, readFileSync(path, 'utf8') + 'open("x", "w")\n');
    const refused = await refusal(run(p, 'apps/snap/tool'));
    expect(refused.code).toBe('INTEGRITY_HASH_MISMATCH');
    expect(readFileSync(copy, 'utf8')).toBe(before);
  });
});

describe('verify, then run the same bytes', () => {
  it('a file swapped back and forth during 20 runs never runs unsigned code', async () => {
    const p = await makeExecProject();
    const marker = markerOf(p);
    const path = p.write(
      '.ai/tools/apps/race/tool.py',
      py('apps/race', 'print(json.dumps({"success": True}))'),
    );
    await p.sign('tool', 'apps/race/tool');
    const signed = readFileSync(path);
    const evil = Buffer.concat([signed, Buffer.from(evilPy(marker))]);
    const good = p.write('good.py', signed, p.root);
    const bad = p.write('bad.py', evil, p.root);
    const stop = join(p.root, 'stop');
    // The attacker: renames the unsigned and the signed version over the tool, as fast as it can.
    const swapper = spawn(process.execPath, [
      '-e',
      `const fs = require('node:fs');
       const [good, bad, target, stop] = process.argv.slice(1);
       const until = Date.now() + 60000;
       for (let i = 0; !fs.existsSync(stop) && Date.now() < until; i++) {
         fs.copyFileSync(i % 2 ? good : bad, target + '.tmp');
         fs.renameSync(target + '.tmp', target);
       }`,
      good,
      bad,
      path,
      stop,
    ]);
    const outcomes: string[] = [];
    try {
      for (let i = 0; i < 20; i += 1) {
        outcomes.push(
          await run(p, 'apps/race/tool').then(
            (r) => r.status,
            (e: { code?: string }) => e.code ?? 'thrown',
          ),
        );
      }
    } finally {
      writeFileSync(stop, '');
      await new Promise((done) => swapper.once('exit', done));
    }
    const allowed = (o: string): boolean =>
      o === 'success' || /^(INTEGRITY|LOCKFILE)_/.test(o) || o === 'EXECUTOR_SOURCE_CHANGED';
    expect(outcomes.every(allowed), outcomes.join(' ')).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('files with no signature format', () => {
  const dir = '.ai/tools/apps/letters';
  async function lettersProject(): Promise<ExecProject> {
    const p = await makeExecProject();
    p.write(`${dir}/__init__.py`, '');
    p.write(`${dir}/template.txt`, 'Dear friend\n');
    p.write(
      `${dir}/write.py`,
      py(
        'apps/letters',
        `import os
here = os.path.dirname(__file__)
print(json.dumps({"success": True, "template": open(os.path.join(here, "template.txt")).read(),
                  "extra": os.path.exists(os.path.join(here, "extra.txt"))}))`,
      ),
    );
    await p.sign('tool', 'apps/letters/**');
    return p;
  }
  const runLetters = (p: ExecProject, dryRun = false): Promise<ExecuteResult> =>
    execute({ spaces: p.spaces, toolId: 'apps/letters/write', env: p.env, dryRun });

  it('are left out of the run unless a verified bundle manifest lists them, and then must match it', async () => {
    const p = await lettersProject();
    const plain = await runLetters(p, true);
    expect(plain.plan?.files_left_out).toEqual(['template.txt']);

    await createBundle({
      spaces: p.spaces,
      bundleId: 'apps/letters',
      version: '1.0.0',
      includes: [],
      signer: await readSigner(keyDir(p.spaces)),
    });
    p.write(`${dir}/extra.txt`, 'planted after the bundle\n');
    const result = await runLetters(p);
    expect(result.status, JSON.stringify(result)).toBe('success');
    expect(result.data).toMatchObject({ template: 'Dear friend\n', extra: false });
    expect((await runLetters(p, true)).plan?.files_left_out).toEqual(['extra.txt']);

    writeFileSync(join(p.project, dir, 'template.txt'), 'Dear victim\n');
    expect((await refusal(runLetters(p))).code).toBe('LOCKFILE_MISMATCH'); // pinned by the first run
    rmSync(join(p.project, '.ai', 'lockfiles'), { recursive: true });
    const refused = await refusal(runLetters(p));
    expect(refused.code).toBe('INTEGRITY_HASH_MISMATCH');
    expect(refused.message).toContain('template.txt');
  });
});

describe('a bare command is never looked up in the working directory', () => {
  // Both ways: the lookup is rye's own, before any sandbox. Sandboxed, a program
  // found in the project would get the project bound read-only over its view
  // (its "install prefix"), so only the unsandboxed run could write the marker.
  it.each(BOTH)(
    'a relative PATH entry cannot make the project supply a tool config’s command (sandbox %s)',
    async (sandbox) => {
      const p = await project(sandbox);
      const marker = markerOf(p);
      p.write(
        '.ai/tools/apps/cmd/run.yaml',
        'version: "1.0.0"\ntool_type: command\nexecutor_id: rye/core/primitives/subprocess\ncategory: apps/cmd\ndescription: runs a bare command\npermissions:\n  write: [markers]\nconfig:\n  command: rye-planted-cmd\n',
      );
      await p.sign('tool', 'apps/cmd/run');
      const planted = p.write('rye-planted-cmd', `#!/bin/sh\ntouch ${marker}\n`);
      chmodSync(planted, 0o755);
      const env = { ...p.env, PATH: `.:${p.env['PATH'] ?? ''}` };
      const refused = await refusal(execute({ spaces: p.spaces, toolId: 'apps/cmd/run', env }));
      expect(refused.code).toBe('EXECUTE_COMMAND_NOT_FOUND');
      expect(existsSync(marker)).toBe(false);
    },
  );
});

// Makes the V8 code caches of the CLI's main.js and fast runners
// (scripts/build-cli.mjs; loaded by src/cli/cached-body.ts).
//
// Each command runs once, in a process of its own, as `rye` would run it, on
// a scratch project: a signed Python tool, its user's own and trusted key, and
// a bundle. Then the code cache of each body that run is for (the code of every
// function the run compiled) is written beside the body. The caches hold
// compiled code only, no state of the run: a run with a cache does exactly
// what it does without one.
//
// A command whose warm-up fails (no python3 on this machine, say) still gets
// the cache of what it compiled; the build says so and goes on. Run as a
// script, this file is that one process:
// `node cli-code-cache.mjs <cli folder> <bodies, comma-separated> <argv…>`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(import.meta.url);

/** Write each body's code cache; returns the commands whose warm-up did not succeed. */
export async function makeCodeCaches({ root, cliDir }) {
  const lib = await import(pathToFileURL(join(root, 'dist', 'src', 'index.js')).href);
  const work = mkdtempSync(join(tmpdir(), 'rye-code-cache-'));
  try {
    const { env, project, tool, trustFile } = await scratchProject(lib, work);
    // Which bodies' caches each run writes: the fast runners' from their
    // commands (the entry runs them without main.js), main.js's from a command
    // the fast path leaves to commander.
    const runs = [
      [['fast/verify-file.js'], ['verify-file', tool, '--item-type', 'tool', '--trust', trustFile]],
      [['fast/verify.js'], ['verify', 'tool', 'cache/noop', '--project', project, '--json']],
      [['fast/bundle-verify.js'], ['bundle', 'verify', 'cache/app', '--project', project]],
      [['fast/execute.js'], ['execute', 'tool', 'cache/noop', '--project', project, '--json']],
      [['main.js'], ['list', 'tool', '--project', project, '--json']],
    ];
    // The first run of a tool writes its lockfile; the cache is of the runs after.
    spawnSync(process.execPath, [join(root, 'bin', 'rye.js'), ...runs[3][1]], { env });
    const failed = [];
    for (const [writes, argv] of runs) {
      const res = spawnSync(process.execPath, [here, cliDir, writes.join(','), ...argv], {
        env,
        encoding: 'utf8',
      });
      if (res.status === 2) throw new Error(`code cache of ${writes}: ${res.stderr}`);
      if (res.status !== 0) failed.push(`${argv[0]} (${firstLine(res.stdout || res.stderr)})`);
    }
    return failed;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const firstLine = (text) => text.trim().split('\n').slice(0, 3).join(' ').slice(0, 200);

/**
 * A project with a signed Python tool and a bundle, and a user space that owns
 * and trusts the signing key, as after `rye init` (a tool run then also looks
 * for a newer lockfile of the user's own: that code is cached too).
 */
async function scratchProject(lib, work) {
  const project = join(work, 'project');
  const user = join(work, 'user');
  const own = await lib.generateKeyFiles(join(user, '.ai', 'keys'));
  const signer = await lib.readSigner(join(user, '.ai', 'keys'));
  const trustFile = join(user, '.ai', 'trusted_keys', `${signer.fingerprint}.toml`);
  write(
    trustFile,
    lib.formatTrustToml({
      fingerprint: signer.fingerprint,
      owner: 'code cache',
      attestation: '',
      publicKeyPem: own.publicKeyPem,
    }),
  );
  const tool = join(project, '.ai', 'tools', 'cache', 'noop.py');
  write(
    tool,
    lib.signText(
      '__version__ = "1.0.0"\n__tool_type__ = "python"\n__executor_id__ = "rye/core/runtimes/python_script_runtime"\n__category__ = "cache"\n__tool_description__ = "noop"\nprint("{}")\n',
      { itemType: 'tool', extension: '.py', signer },
    ).text,
  );
  write(join(project, 'app', 'index.txt'), 'an app\n');
  mkdirSync(join(project, '.ai', 'tools', 'cache', 'app'), { recursive: true });
  // None of the builder's own rye settings (a capability token, another system
  // space…), and no NODE_OPTIONS: V8 refuses a cache made under other flags.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('RYE_') && k !== 'NODE_OPTIONS'),
  );
  env.RYE_USER_SPACE = user;
  await lib.createBundle({
    spaces: lib.resolveSpaces({ project, env }),
    bundleId: 'cache/app',
    version: '1.0.0',
    includes: ['app'],
    signer,
  });
  return { env, project, tool, trustFile };
}

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/**
 * The warm-up process: run `rye <argv…>` as bin/rye.js does, then write the
 * code caches of the bodies `writes` names (paths under `cliDir`). Exits 0 when
 * the command succeeded, 1 when it did not (the caches are written either way),
 * 2 when a cache could not be written.
 */
async function warmUp(cliDir, writes, argv) {
  try {
    // Bodies are compiled under their names in the package (`rye-ts/dist/cli/…`),
    // which Node 20 shows in stack traces in place of the installed path
    // (src/cli/cached-body.ts): never this build machine's folders.
    const root = join(cliDir, '..', '..');
    const { name } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    globalThis[Symbol.for('rye.cli.cacheScriptName')] = (path) =>
      [name, ...relative(root, path).split(sep)].join('/');
    const { runCli, loadedBodies } = createRequire(import.meta.url)(join(cliDir, 'entry.cjs'));
    const code = await runCli(cliDir, argv);
    for (const file of writes.split(',')) {
      const body = loadedBodies().get(join(cliDir, file.replace(/\.js$/, '.body.js')));
      if (body === undefined) throw new Error(`rye ${argv[0]} did not load ${file} from a body`);
      writeFileSync(body.codeCache.path, body.codeCache.create());
    }
    process.exitCode = code === 0 ? 0 : 1;
  } catch (error) {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exitCode = 2;
  }
}

if (process.argv[1] === here) await warmUp(process.argv[2], process.argv[3], process.argv.slice(4));

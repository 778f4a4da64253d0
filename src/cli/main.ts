import type { CliIo } from './context.js';
import { parseFastArgv } from './fast-path.js';
import { loadFastRunner } from './fast-runners.js';
import type { LazyCommand } from './lazy-command.js';
import { processIo } from './process-io.js';

/** The version `rye --version` prints. */
export const VERSION = '0.1.0';

/** Every top-level command, in help order. To add one: one entry here. */
export const COMMANDS: readonly LazyCommand[] = [
  {
    term: 'init [options]',
    summary: 'make this folder a rye project (.ai/ skeleton, README) and a key if you have none',
    load: async () => (await import('./commands/init.js')).initCommand,
  },
  {
    term: 'keys',
    summary: 'manage your signing key pair (in <user>/.ai/keys)',
    load: async () => (await import('./commands/keys.js')).keysCommand,
  },
  {
    term: 'trust',
    summary: 'manage trusted public keys (<space>/.ai/trusted_keys)',
    load: async () => (await import('./commands/trust.js')).trustCommand,
  },
  {
    term: 'sign [options] <type> <item>',
    summary: 'validate and sign items in place (one signature line each)',
    load: async () => (await import('./commands/sign.js')).signCommand,
  },
  {
    term: 'dotenv',
    summary:
      "sign or check the project .env (rye applies a signed .env's names that a tool declares)",
    load: async () => (await import('./commands/dotenv.js')).dotenvCommand,
  },
  {
    term: 'verify [options] <type> <item>',
    summary: 'verify items where they resolve (project → user → system)',
    load: async () => (await import('./commands/verify.js')).verifyCommand,
  },
  {
    term: 'verify-file [options] <path>',
    summary:
      'verify one file; with --trust, exactly those keys are trusted and no key store is read',
    load: async () => (await import('./commands/verify-file.js')).verifyFileCommand,
  },
  {
    term: 'execute [options] <type> <item>',
    summary:
      'verify a tool, its chain and its dependencies, then run it; or plan a directive as a thread',
    load: async () => (await import('./commands/execute.js')).executeCommand,
  },
  {
    term: 'thread',
    summary:
      'threads under .ai/threads/: list, show, verify, resume, cancel, wait for and tail them',
    load: async () => (await import('./commands/thread.js')).threadCommand,
  },
  {
    term: 'lock',
    summary: 'manage lockfiles: the pinned chain and dependencies of each tool',
    load: async () => (await import('./commands/lock.js')).lockCommand,
  },
  {
    term: 'bundle',
    summary: 'signed bundle manifests: items, plans, lockfiles and app files',
    load: async () => (await import('./commands/bundle.js')).bundleCommand,
  },
  {
    term: 'cache',
    summary: 'the verified snapshots tools run from (<user>/.ai/cache/snapshots, or RYE_CACHE_DIR)',
    load: async () => (await import('./commands/cache.js')).cacheCommand,
  },
  {
    term: 'sandbox',
    summary:
      'the daemon sandboxes tools left running (permissions daemon: true): list and stop them',
    load: async () => (await import('./commands/sandbox.js')).sandboxCommand,
  },
  {
    term: 'registry',
    summary: 'share signed items and bundles: run a registry, log in, push and pull',
    load: async () => (await import('./commands/registry.js')).registryCommand,
  },
  {
    term: 'search [options] <query>',
    summary:
      'search the items of the three spaces, best match first; every result shows its signature verdict',
    load: async () => (await import('./commands/search.js')).searchCommand,
  },
  {
    term: 'load [options] <type> <id>',
    summary:
      'print the verified content of an item (signature line removed); refused unless it verifies',
    load: async () => (await import('./commands/load.js')).loadCommand,
  },
  {
    term: 'list [options] [type]',
    summary:
      'list items by type and id: the file each id resolves to, with its version, space and verdict',
    load: async () => (await import('./commands/list.js')).listCommand,
  },
  {
    term: 'cap',
    summary: 'mint and revoke capability tokens (rye-cap-v1) that cap an MCP server or a process',
    load: async () => (await import('./commands/cap.js')).capCommand,
  },
  {
    term: 'mcp',
    summary: 'serve Rye to MCP clients',
    load: async () => (await import('./commands/mcp.js')).mcpCommand,
  },
  {
    term: 'completion [options] <shell>',
    summary: 'print a shell completion script (bash, zsh or fish)',
    load: async () => (await import('./commands/completion.js')).completionCommand,
  },
];

/**
 * Run the `rye` CLI and return its exit code: 0 success, 1 operation failed,
 * 2 usage error, 3 verification or integrity refusal. Loads only what the
 * command line needs: `rye --version` nothing more, `rye --help` the argument
 * parser, any other command its own code (see {@link COMMANDS}); the hot
 * commands, when their command line has a shape it recognises exactly, their
 * own code without the parser (see fast-path.ts).
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  // Under a RYE_CAP_TOKEN every command goes through the program, which holds it to the token.
  const fast = io.env['RYE_CAP_TOKEN'] === undefined ? parseFastArgv(argv) : undefined;
  if (fast !== undefined)
    return (await loadFastRunner(fast.command.runner))(io, fast.args, fast.options);
  const { runProgram } = await import('./program.js');
  return runProgram(argv, io, { version: VERSION, commands: COMMANDS });
}

/**
 * The people of a registry test: authors (a key, an account, the key
 * registered) and consumers (a fresh project and user space), each running
 * the real `rye` binary against a loopback `rye registry serve`. Shared by the
 * registry's CLI tests and the worked example's bundle round trip, so both
 * sign up and pull the same way.
 */
import { expect } from 'vitest';
import { rye, type CliResult } from './cli.js';
import { BUILT_SYSTEM, makeExecProject, type ExecProject } from './exec-project.js';
import { makeTempSpaces, type TempSpaces } from './temp-space.js';

/** Whoever runs a command: a project and the user space its env points at. */
export type Who = Pick<TempSpaces, 'project' | 'env' | 'user'>;

/** `rye <args> --project <who> --registry <url>` in `who`'s environment. */
export const registryRun = (
  who: Who,
  url: string,
  args: string[],
  stdin?: string,
): Promise<CliResult> =>
  rye([...args, '--project', who.project, '--registry', url], {
    env: who.env,
    ...(stdin === undefined ? {} : { stdin }),
  });

export function expectOk(res: CliResult): void {
  expect(res.code, `${res.stdout}\n${res.stderr}`).toBe(0);
}

/**
 * Make `p` an author on the registry: sign up as `username` (password on
 * stdin) and register the user key `p` already has.
 */
export async function signUpAuthor<P extends Who>(p: P, url: string, username: string): Promise<P> {
  expectOk(
    await registryRun(
      p,
      url,
      ['registry', 'signup', '--username', username, '--password-stdin'],
      `pw-${username}-1\n`,
    ),
  );
  expectOk(await registryRun(p, url, ['registry', 'keys', 'add']));
  return p;
}

/** An author with a key, an account and a registered key, in a fresh project. */
export async function author(url: string, username: string): Promise<ExecProject> {
  return signUpAuthor(await makeExecProject(), url, username);
}

/** A consumer: fresh project, fresh user space (no key, no pins, no login). */
export function consumer(): TempSpaces {
  return makeTempSpaces({ system: BUILT_SYSTEM });
}

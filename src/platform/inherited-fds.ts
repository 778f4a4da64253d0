/**
 * Descriptors this process holds without close-on-exec: those it inherited
 * from whoever started it (an operator's shell, an MCP host, a CI runner).
 * Node and libuv open everything close-on-exec, so these are the only
 * descriptors a spawned child would receive beyond the stdio it was given.
 *
 * Linux only: read from `/proc/self/fdinfo`; elsewhere the answer is empty.
 */
import { openSync, readdirSync, readFileSync } from 'node:fs';

/** O_CLOEXEC, as `/proc/<pid>/fdinfo/<fd>` prints it in the octal `flags:` line. */
const O_CLOEXEC = 0o2000000;

/**
 * The descriptors above stderr that a child would inherit, in ascending order.
 * A descriptor closed while it is read is skipped.
 */
export function inheritableDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fdinfo');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${name}`, 'latin1');
    } catch {
      continue;
    }
    const flags = /^flags:\s*([0-7]+)$/m.exec(info)?.[1];
    if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) found.push(fd);
  }
  return found.sort((a, b) => a - b);
}

let devNull: number | undefined;

/**
 * A descriptor on /dev/null, opened once (close-on-exec) and kept: what a
 * child gets in place of each inherited descriptor.
 */
export function devNullDescriptor(): number {
  devNull ??= openSync('/dev/null', 'r');
  return devNull;
}

import { Writable } from 'node:stream';

/**
 * Claim standard output for the protocol: returns a stream that writes to
 * the real stdout, and turns every other write to `process.stdout` (a stray
 * `console.log` in a dependency, say) into a write to stderr. On stdio, a
 * single foreign byte on stdout corrupts the client's JSON-RPC stream.
 * Tools never share it: the executor captures their output through pipes.
 */
export function claimStdout(): Writable {
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout) as (
    chunk: Uint8Array,
    callback: (error?: Error | null) => void,
  ) => boolean;
  const protocol = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      write(chunk, (error) => callback(error ?? null));
    },
  });
  stdout.write = process.stderr.write.bind(process.stderr) as typeof stdout.write;
  return protocol;
}

import { RyeError } from '../errors/index.js';

/** Most bytes a command reads from standard input. */
export const MAX_STDIN_BYTES = 64 * 1024;

/**
 * Read a stream to its end as UTF-8, refusing more than `max` bytes.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT past `max`
 */
export async function readAllCapped(
  stream: AsyncIterable<string | Buffer>,
  max: number = MAX_STDIN_BYTES,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > max) {
      throw new RyeError(
        'USAGE_INVALID_ARGUMENT',
        `Cannot read standard input: it holds more than ${max} bytes`,
        { max },
      );
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

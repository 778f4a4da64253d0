import type { KeyObject } from 'node:crypto';
import { derivedMacKey, macHex, macMatches, type Signer } from '../../integrity/index.js';

/**
 * The per-thread keys that MAC transcript events. Each is derived from the
 * user's signing key and the thread id, so it lives only where that key does
 * (user space, outside every sandbox) and in the rye process that holds it.
 */
export interface MacKeyring {
  /** The fingerprint of the user key the MAC keys derive from. */
  readonly fingerprint: string;
  keyFor(thread: string): KeyObject;
}

/** The HKDF salt: names what the derived keys are for. */
const PURPOSE = 'rye transcript event mac v2';

/** The tag: HMAC-SHA256 truncated to 128 bits (RFC 2104 §5, as HMAC-SHA-256-128 in RFC 4868), 32 hex digits. */
const TAG_HEX = 32;
/** `,"mac":"` + 32 hex + `"}`: how every v2 line ends. */
const MAC_TAIL_BYTES = 8 + TAG_HEX + 2;
const MAC_OPEN = Buffer.from(',"mac":"', 'latin1');
const CLOSE = '}';
export const TAG_RE = /^[0-9a-f]{32}$/;

/** How many bytes {@link macLine} adds to a line. */
export const MAC_EXTRA_BYTES = MAC_TAIL_BYTES - 1;

/** The keyring of the user key `signer`; each thread's key is derived once. */
export function macKeyring(signer: Signer): MacKeyring {
  const keys = new Map<string, KeyObject>();
  return {
    fingerprint: signer.fingerprint,
    keyFor(thread) {
      let key = keys.get(thread);
      if (key === undefined) {
        key = derivedMacKey(signer.privateKey, PURPOSE, thread);
        keys.set(thread, key);
      }
      return key;
    },
  };
}

/**
 * A v2 line, `\n` included, from the same line without its MAC
 * (`{…,"payload":{…}}`): the tag of its exact UTF-8 bytes, under the
 * thread's key, as a last field. Pure over the key.
 */
export function macLine(key: KeyObject, bare: string): string {
  return `${bare.slice(0, -1)},"mac":"${macHex(key, bare).slice(0, TAG_HEX)}"}\n`;
}

/**
 * Why a stored v2 line's MAC does not verify, or null when it does: its last
 * field is `"mac"` with 64 hex digits, the HMAC of the line without that
 * field. Pure over the key.
 */
export function macProblem(key: KeyObject, line: Buffer): string | null {
  const start = line.length - MAC_TAIL_BYTES;
  if (start < 1 || !line.subarray(start, start + MAC_OPEN.length).equals(MAC_OPEN)) {
    return 'its MAC is not the last field';
  }
  const hex = line.toString('latin1', start + MAC_OPEN.length, line.length - 2);
  if (!TAG_RE.test(hex) || line.toString('latin1', line.length - 2) !== '"}') {
    return `its MAC is not ${TAG_HEX} hex digits`;
  }
  return macMatches(key, hex, line.subarray(0, start), CLOSE)
    ? null
    : "its MAC does not verify under this thread's key: written by something other than rye under your key";
}

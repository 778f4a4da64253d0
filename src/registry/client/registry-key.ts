import { RyeError, isRyeError } from '../../errors/index.js';
import { fingerprintOf, formatTimestamp, parsePublicKey } from '../../integrity/index.js';
import { parseRegistryKeyDocument } from './documents.js';
import { badResponse } from './http.js';
import { readPin, savePin } from './pins.js';
import type { CheckedRegistryKey, RegistrySession } from './session.js';
import type { PinnedRegistryKey } from './verify-answer.js';

/** The well-known key document's path. */
export const REGISTRY_KEY_PATH = '/.well-known/rye-registry.json';

/**
 * The key the registry serves now, checked: an Ed25519 SPKI key whose
 * fingerprint is the one the document states.
 *
 * @throws RyeError REGISTRY_UNREACHABLE, REGISTRY_BAD_RESPONSE
 */
export async function fetchRegistryKey(session: RegistrySession): Promise<PinnedRegistryKey> {
  const { url } = session.endpoint;
  const { value } = await session.http.json({
    method: 'GET',
    path: REGISTRY_KEY_PATH,
    maxBytes: 64 * 1024,
  });
  const doc = parseRegistryKeyDocument(value, url);
  let info;
  try {
    info = parsePublicKey(doc.public_key);
  } catch (error) {
    if (!isRyeError(error)) throw error;
    throw badResponse(url, `its public_key is not an Ed25519 key (${error.message})`);
  }
  if (fingerprintOf(doc.public_key) !== doc.fingerprint || info.fingerprint !== doc.fingerprint)
    throw badResponse(url, `its public_key does not have the fingerprint ${doc.fingerprint}`);
  return { fingerprint: doc.fingerprint, publicKeyPem: info.publicKeyPem };
}

/**
 * The registry key to verify answers with, checked once per session (the
 * first call fetches, later calls share the answer): pinned on first use
 * (TOFU) where that is safe, and from then on the served key must be the
 * pinned one. TOFU is safe over HTTPS and on loopback; a plain-HTTP registry
 * on another host is used only with a key pinned explicitly first
 * (`rye registry pin --fingerprint FP`), and is refused before any request.
 *
 * @throws RyeError REGISTRY_INSECURE_TRANSPORT, REGISTRY_KEY_CHANGED,
 *   REGISTRY_UNREACHABLE, REGISTRY_BAD_RESPONSE, FILE_UNREADABLE (a damaged
 *   pin file), FILE_WRITE_FAILED
 */
export function pinnedRegistryKey(session: RegistrySession): Promise<CheckedRegistryKey> {
  const cache = session.keyCheck;
  if (cache.current === undefined) {
    const check = checkRegistryKey(session);
    cache.current = check;
    // A failed check is not remembered: the next call asks again.
    check.catch(() => {
      if (cache.current === check) cache.current = undefined;
    });
  }
  return cache.current;
}

async function checkRegistryKey(session: RegistrySession): Promise<CheckedRegistryKey> {
  const { url, transport } = session.endpoint;
  if (transport === 'insecure' && (await readPin(session.spaces, url)) === null) {
    const fix = `rye registry pin --registry ${url} --fingerprint FP`;
    throw new RyeError(
      'REGISTRY_INSECURE_TRANSPORT',
      `Cannot trust the registry at ${url}: plain HTTP is trusted on first use only for loopback hosts (127.0.0.0/8, ::1, localhost); use https://, or pin the key fingerprint its operator gave you first with \`${fix}\``,
      { registry: url, fix },
    );
  }
  const served = await fetchRegistryKey(session);
  const pin = await readPin(session.spaces, url);
  if (pin === null) {
    await savePin(session.spaces, url, { ...served, pinnedAt: formatTimestamp(new Date()) });
    return { ...served, pinnedNow: true };
  }
  if (pin.fingerprint !== served.fingerprint) {
    const fix = `rye registry pin --registry ${url} --fingerprint ${served.fingerprint}`;
    throw new RyeError(
      'REGISTRY_KEY_CHANGED',
      `Cannot trust the registry at ${url}: it serves key ${served.fingerprint}, but key ${pin.fingerprint} was pinned${pin.pinnedAt === '' ? '' : ` on ${pin.pinnedAt}`}; if its operator rotated the key, re-pin with \`${fix}\``,
      { registry: url, pinned: pin.fingerprint, served: served.fingerprint, fix },
    );
  }
  return { fingerprint: pin.fingerprint, publicKeyPem: pin.publicKeyPem, pinnedNow: false };
}

/**
 * `rye registry pin`: pin the served key, but only when it has exactly the
 * fingerprint the user read from a trusted channel.
 *
 * @throws RyeError USAGE_INVALID_ARGUMENT (malformed fingerprint),
 *   REGISTRY_KEY_CHANGED (the served key has another fingerprint), and the
 *   codes of fetchRegistryKey.
 */
export async function repinRegistryKey(
  session: RegistrySession,
  fingerprint: string,
): Promise<{ fingerprint: string; previous: string | null; path: string }> {
  const { url } = session.endpoint;
  if (!/^[0-9a-f]{16}$/.test(fingerprint)) {
    throw new RyeError(
      'USAGE_INVALID_ARGUMENT',
      `Cannot pin "${fingerprint.slice(0, 40)}": a fingerprint is 16 lowercase hex characters`,
      { fingerprint: fingerprint.slice(0, 40) },
    );
  }
  const served = await fetchRegistryKey(session);
  if (served.fingerprint !== fingerprint) {
    throw new RyeError(
      'REGISTRY_KEY_CHANGED',
      `Cannot pin ${fingerprint} for ${url}: the registry serves key ${served.fingerprint}`,
      { registry: url, expected: fingerprint, served: served.fingerprint },
    );
  }
  const previous = await readPin(session.spaces, url).catch(() => null);
  const path = await savePin(session.spaces, url, {
    ...served,
    pinnedAt: formatTimestamp(new Date()),
  });
  session.keyCheck.current = Promise.resolve({ ...served, pinnedNow: true });
  return { fingerprint, previous: previous?.fingerprint ?? null, path };
}

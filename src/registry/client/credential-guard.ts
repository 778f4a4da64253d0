/**
 * No credential leaves before the registry proved who it is (issue 11, "TOFU
 * only where it is safe"): the one gate every request of a session passes.
 */
import { RyeError } from '../../errors/index.js';
import type { HttpRequest } from './http.js';
import { REGISTRY_KEY_PATH, pinnedRegistryKey } from './registry-key.js';
import type { RegistrySession } from './session.js';

/**
 * What a session's transport checks before each request:
 * - the key document itself passes (it is public and carries nothing);
 * - a request carrying a token or a password waits for the registry key
 *   check (served key = pinned key, or pinned now where TOFU is safe), and is
 *   refused outright over plain HTTP to a host that is not loopback, where
 *   anyone on the path could read it whatever key the server shows;
 * - any other request to such an insecure origin needs the pinned key too.
 *
 * @throws RyeError REGISTRY_INSECURE_TRANSPORT, and the codes of pinnedRegistryKey
 */
export async function guardRequest(session: RegistrySession, request: HttpRequest): Promise<void> {
  if (request.path === REGISTRY_KEY_PATH) return;
  const carries = request.token !== undefined || request.credentials === true;
  if (carries && session.endpoint.transport === 'insecure') {
    const { url } = session.endpoint;
    throw new RyeError(
      'REGISTRY_INSECURE_TRANSPORT',
      `Cannot send credentials to ${url}: plain HTTP is used only for loopback hosts (127.0.0.0/8, ::1, localhost), and a token or password sent over it can be read on the way; use https://`,
      { registry: url, request: `${request.method} ${request.path}` },
    );
  }
  if (carries || session.endpoint.transport === 'insecure') await pinnedRegistryKey(session);
}

import { RyeError } from '../../errors/index.js';
import { isUsername } from '../names.js';
import type { TokenInUse } from './credentials.js';
import { parseWhoamiDocument } from './documents.js';
import type { RegistrySession } from './session.js';

/**
 * The namespace to publish into: `--namespace`, else the username saved with
 * the token, else the registry's answer to whoami.
 *
 * @throws RyeError REGISTRY_REF_INVALID, and the codes of the whoami call.
 */
export async function publishNamespace(
  session: RegistrySession,
  token: TokenInUse,
  given: string | undefined,
): Promise<string> {
  if (given !== undefined) {
    const shown = given.slice(0, 60);
    if (!isUsername(given)) {
      throw new RyeError(
        'REGISTRY_REF_INVALID',
        `Cannot publish into namespace "${shown}": namespaces are usernames of 2-39 characters [a-z0-9_-]`,
        { namespace: shown },
      );
    }
    return given;
  }
  if (token.username !== null) return token.username;
  const { value } = await session.http.json({
    method: 'GET',
    path: '/v1/whoami',
    token: token.token,
  });
  return parseWhoamiDocument(value, session.endpoint.url).username;
}

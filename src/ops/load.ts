import { allowed } from '../capabilities/index.js';
import { loadItem, type LoadedItem } from '../catalog/index.js';
import type { OperationContext } from './context.js';
import type { LoadInput } from './schemas.js';
import { denyUnder } from './search.js';

/**
 * Load one verified item under the call's authority (`load`, or `execute`,
 * which implies it). Anything that does not verify is refused with its
 * verification code; a directive must pass the grammar; an `xml-only`
 * directive only when `allowXmlOnly`.
 *
 * @throws RyeError CAPABILITY_DENIED, the verification codes, VALIDATION_FAILED, ITEM_NOT_FOUND
 */
export async function loadOperation(
  ctx: OperationContext,
  input: LoadInput,
  options: { readonly allowXmlOnly?: boolean } = {},
): Promise<LoadedItem> {
  const caps = ctx.authority.caps;
  return loadItem({
    project: ctx.spaces.project,
    env: { ...ctx.env },
    item_type: input.item_type,
    item_id: input.item_id,
    ...(input.source === undefined ? {} : { space: input.source }),
    visible: (type, id) => allowed(caps, 'load', type, id),
    deny: denyUnder(ctx),
    ...(options.allowXmlOnly === true ? { allowXmlOnly: true } : {}),
  });
}

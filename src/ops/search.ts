import { allowed, requireAllowed } from '../capabilities/index.js';
import { searchItems, type SearchResult } from '../catalog/index.js';
import type { OperationContext } from './context.js';
import type { SearchInput } from './schemas.js';

/**
 * Search the three spaces under the call's authority: results it may not
 * search are filtered out before they are counted, never reported.
 *
 * @throws RyeError SEARCH_QUERY_TOO_LONG, SEARCH_INDEX_FAILED
 */
export async function searchOperation(
  ctx: OperationContext,
  input: SearchInput,
): Promise<SearchResult[]> {
  const caps = ctx.authority.caps;
  return searchItems({
    project: ctx.spaces.project,
    env: { ...ctx.env },
    query: input.query,
    ...(input.item_type === undefined ? {} : { item_type: input.item_type }),
    ...(input.space === undefined ? {} : { space: input.space }),
    ...(input.limit === undefined ? {} : { limit: input.limit }),
    visible: (type, id) => allowed(caps, 'search', type, id),
  });
}

/** `deny` for the catalog: the capability refusal, naming what was needed. */
export function denyUnder(ctx: OperationContext) {
  return (verb: 'load', type: Parameters<typeof requireAllowed>[2], id: string): never => {
    requireAllowed(ctx.authority, verb, type, id);
    // requireAllowed returned: the catalog asked to deny what the set allows.
    throw new Error(`catalog denied ${verb} ${type} ${id} that the authority allows`);
  };
}

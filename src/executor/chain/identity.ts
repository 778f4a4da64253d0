import { RyeError } from '../../errors/index.js';
import {
  identityIssues,
  itemCategory,
  itemName,
  type ItemMetadata,
  type ResolvedItem,
} from '../../items/index.js';

/**
 * Class 11: a signature binds content, not location. A chain element is run
 * as the id it resolved as, so its signed metadata must name that id: the
 * `category` equals the folder part of the id ('' at the top level) and a
 * declared `name` equals the last segment — the rule `rye sign` enforces
 * (`identityIssues`, shared with validation). A validly signed tool copied
 * over another id, or a runtime copied over another runtime's id, is refused
 * before anything of it is used. Call it only on verified bytes' metadata.
 *
 * @throws RyeError EXECUTOR_IDENTITY_MISMATCH naming the id, the path and the
 *   signed values.
 */
export function checkIdentity(item: ResolvedItem, metadata: ItemMetadata): void {
  const issues = identityIssues(metadata, item.itemId);
  if (issues.length === 0) return;
  const signed = signedIdentity(metadata);
  const where: Record<string, string> = {
    category: itemCategory(item.itemId),
    name: itemName(item.itemId),
  };
  const expected = Object.fromEntries(Object.keys(signed).map((field) => [field, where[field]]));
  const show = (values: Record<string, unknown>): string =>
    Object.entries(values)
      .map(([field, v]) => `${field} ${v === null ? '(none)' : JSON.stringify(v).slice(0, 200)}`)
      .join(', ');
  throw new RyeError(
    'EXECUTOR_IDENTITY_MISMATCH',
    `Cannot run ${item.itemId}: ${item.path} is signed with ${show(signed)}, but it resolved as ${item.itemId} (${show(expected)}) — a signed file copied over another id is refused`,
    {
      itemId: item.itemId,
      space: item.space,
      path: item.path,
      expected,
      signed,
      issues,
    },
  );
}

/** The identity fields the item's format has, as its (signed) metadata declares them; null when absent. */
function signedIdentity(metadata: ItemMetadata): Record<string, unknown> {
  switch (metadata.kind) {
    case 'tool':
      return { category: metadata.fields.category ?? null };
    case 'directive':
      return { category: metadata.category ?? null, name: metadata.name ?? null };
    case 'knowledge':
      return {
        category: metadata.fields['category'] ?? null,
        name: metadata.fields['name'] ?? null,
      };
  }
}

/**
 * `<metadata>`: description, category, author, model, limits, permissions.
 * Pure.
 */
import type { XmlElement } from '../metadata/safe-xml.js';
import {
  attrPath,
  checkAttributes,
  checkChildren,
  checkNoText,
  childPath,
  firstChild,
  leafText,
  shown,
  type Issues,
} from './issues.js';
import { readLimits } from './limits.js';
import { NO_PERMISSIONS, readPermissions } from './permissions.js';
import type { DirectiveLimits, DirectiveModel, DirectivePermissionList } from './types.js';

const TIER_RE = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
const MODEL_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,127}$/;
const PROVIDER_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** What `<metadata>` declares. */
export interface MetadataSection {
  readonly description: string;
  readonly category?: string;
  readonly author?: string;
  readonly model?: DirectiveModel;
  readonly limits: DirectiveLimits;
  readonly permissions: DirectivePermissionList;
}

/** Read `<metadata>`; `el` undefined reports it missing. */
export function readMetadataSection(
  el: XmlElement | undefined,
  path: string,
  issues: Issues,
): MetadataSection {
  if (el === undefined) {
    issues.add(path, 'the <metadata> element is missing (it holds at least <description>)');
    return { description: '', limits: {}, permissions: NO_PERMISSIONS };
  }
  checkAttributes(el, path, [], issues);
  checkNoText(el, path, issues);
  checkChildren(
    el,
    path,
    {
      description: 'once',
      category: 'once',
      author: 'once',
      model: 'once',
      limits: 'once',
      permissions: 'once',
    },
    issues,
  );
  const text = (tag: string): string | undefined => {
    const child = firstChild(el, tag);
    return child === undefined ? undefined : leafText(child, childPath(path, tag), issues);
  };
  const description = text('description') ?? '';
  if (description === '') {
    issues.add(childPath(path, 'description'), 'must be a non-empty description');
  }
  const category = text('category');
  const author = text('author');
  const modelEl = firstChild(el, 'model');
  const model = modelEl && readModel(modelEl, childPath(path, 'model'), issues);
  const limitsEl = firstChild(el, 'limits');
  const permissionsEl = firstChild(el, 'permissions');
  return {
    description,
    ...(category === undefined ? {} : { category }),
    ...(author === undefined ? {} : { author }),
    ...(model === undefined ? {} : { model }),
    limits: limitsEl ? readLimits(limitsEl, childPath(path, 'limits'), issues) : {},
    permissions: permissionsEl
      ? readPermissions(permissionsEl, childPath(path, 'permissions'), issues)
      : NO_PERMISSIONS,
  };
}

function readModel(el: XmlElement, path: string, issues: Issues): DirectiveModel {
  leafText(el, path, issues, ['tier', 'id', 'provider']);
  if (el.text !== '')
    issues.add(path, 'text is not allowed: use the tier, id and provider attributes');
  const { tier, id, provider } = el.attributes;
  if (tier === undefined && id === undefined) issues.add(path, 'needs a tier or an id attribute');
  const check = (name: string, value: string | undefined, re: RegExp, what: string): void => {
    if (value !== undefined && !re.test(value)) {
      issues.add(attrPath(path, name), `must be ${what}, got "${shown(value)}"`);
    }
  };
  check('tier', tier, TIER_RE, 'a tier name like "sonnet"');
  check('id', id, MODEL_ID_RE, 'a model id like "claude-sonnet-4-20250514"');
  check('provider', provider, PROVIDER_RE, 'a provider id like "anthropic"');
  return {
    ...(tier === undefined ? {} : { tier }),
    ...(id === undefined ? {} : { id }),
    ...(provider === undefined ? {} : { provider }),
  };
}

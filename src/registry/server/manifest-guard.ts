import { RyeError } from '../../errors/index.js';
import { parseManifestWith, type BundleManifest } from '../../bundle/index.js';

/**
 * Manifests in any layout but the canonical one `rye bundle create` writes go
 * through the full YAML parser, which costs about 1.5 ms per KiB of the
 * request thread: the registry reads those only up to this size.
 */
export const MAX_FULL_YAML_MANIFEST_BYTES = 64 * 1024;

/** The canonical layout's header (signature line and `bundle:` block) is a few hundred bytes. */
export const MAX_MANIFEST_HEADER_BYTES = 16 * 1024;

const FILES_LINE = '\nfiles:\n';

/**
 * UNTRUSTED INPUT (already size-capped and author-verified): parse a pushed
 * manifest with every step bounded. The canonical layout is read in linear
 * time (its `bundle:` header, at most {@link MAX_MANIFEST_HEADER_BYTES}, with
 * YAML); anything else only when the whole text is at most
 * {@link MAX_FULL_YAML_MANIFEST_BYTES}. The refusal comes before the parser
 * starts.
 *
 * @throws RyeError REGISTRY_BODY_TOO_LARGE (a large manifest that is not
 *   canonical), BUNDLE_MANIFEST_INVALID
 */
export function parsePushedManifest(text: string, label: string): BundleManifest {
  if (text.length > MAX_FULL_YAML_MANIFEST_BYTES) {
    const header = text.indexOf(FILES_LINE);
    if (header === -1 || header > MAX_MANIFEST_HEADER_BYTES) throw notCanonical(label);
  }
  return parseManifestWith(text, label, {
    onPath: (path) => {
      // Called before the full parser starts: refusing here costs nothing.
      if (path === 'full' && Buffer.byteLength(text, 'utf8') > MAX_FULL_YAML_MANIFEST_BYTES) {
        throw notCanonical(label);
      }
    },
  });
}

function notCanonical(label: string): RyeError {
  return new RyeError(
    'REGISTRY_BODY_TOO_LARGE',
    `Cannot accept ${label}: it is not in the layout rye bundle create writes, and a manifest in any other layout may be at most ${MAX_FULL_YAML_MANIFEST_BYTES} bytes; re-create the bundle with rye bundle create`,
    { limit: MAX_FULL_YAML_MANIFEST_BYTES },
  );
}

/**
 * A composed YAML document → plain data, in one pass over its nodes. It
 * replaces the library's `toJS` and `uniqueKeys` for untrusted text: the
 * library compares each key with every earlier key of its map and scans the
 * document's anchors for each alias, both quadratic.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type Node, type Pair } from 'yaml';
import { RyeError } from '../../errors/index.js';

/** Limits on what aliases may add and how deep the result may nest. */
export interface YamlValueCaps {
  /** Most alias nodes in the document. */
  readonly maxAliases: number;
  /**
   * Most nodes all aliases together may stand for (a billion-laughs document
   * stands for billions); a string counts one node per 64 characters, so 50
   * aliases of a 1 MB string cannot stand for 50 MB either.
   */
  readonly maxAliasedNodes: number;
  /** Deepest nesting of maps and sequences in the result. */
  readonly maxDepth: number;
}

/** Characters of a string that weigh as much as one node. */
const STRING_WEIGHT = 64;

interface Converted {
  readonly value: unknown;
  /** Nodes this value stands for, aliases expanded. */
  readonly size: number;
}

/** An anchor seen in document order; `converted` is unset while its node is being converted. */
interface AnchorEntry {
  readonly node: Node;
  converted?: Converted;
}

/**
 * Convert the document's contents as the library's `doc.toJS()` would (maps
 * become objects with the same property names, `__proto__` an own data key;
 * an alias stands for the value of the last anchor of that name before it,
 * shared, not copied), in time linear in the number of nodes.
 *
 * @throws RyeError METADATA_PARSE_FAILED for a map key that is not a scalar, two
 *   keys of one map naming the same property (`1` and `"1"` included) or an
 *   alias without an anchor before it; PARSE_UNSAFE_CONTENT for an alias to its
 *   own ancestor, more aliases or aliased nodes than the caps, or nesting
 *   deeper than `caps.maxDepth`.
 */
export function yamlToValue(doc: Document.Parsed, source: string, caps: YamlValueCaps): unknown {
  return new YamlConverter(source, caps).convert(doc.contents, 0).value;
}

class YamlConverter {
  private readonly anchors = new Map<string, AnchorEntry>();
  private aliases = 0;
  private aliasedNodes = 0;

  constructor(
    private readonly source: string,
    private readonly caps: YamlValueCaps,
  ) {}

  /** `depth`: how many maps and sequences enclose `node`. */
  convert(node: unknown, depth: number): Converted {
    if (node === null || node === undefined) return { value: null, size: 1 };
    if (isAlias(node)) return this.alias(node.source);
    const entry = this.anchor(node as Node);
    const converted = this.convertNode(node, depth);
    if (entry !== undefined) entry.converted = converted;
    return converted;
  }

  /** Registers the node's anchor, if any, before its children: a child may redefine the name. */
  private anchor(node: Node): AnchorEntry | undefined {
    const name = (node as { anchor?: string }).anchor;
    if (name === undefined) return undefined;
    const entry: AnchorEntry = { node };
    this.anchors.set(name, entry);
    return entry;
  }

  private alias(name: string): Converted {
    this.aliases += 1;
    if (this.aliases > this.caps.maxAliases) {
      this.fail('PARSE_UNSAFE_CONTENT', `more than ${this.caps.maxAliases} aliases`);
    }
    const entry = this.anchors.get(name);
    if (entry === undefined)
      this.fail('METADATA_PARSE_FAILED', `alias *${name} has no anchor before it`);
    const target = entry.converted;
    if (target === undefined) {
      this.fail('PARSE_UNSAFE_CONTENT', `alias *${name} refers to its own ancestor (a cycle)`);
    }
    this.aliasedNodes += target.size;
    if (this.aliasedNodes > this.caps.maxAliasedNodes) {
      const why = `aliases stand for more than ${this.caps.maxAliasedNodes} nodes`;
      this.fail('PARSE_UNSAFE_CONTENT', why);
    }
    return target;
  }

  private convertNode(node: unknown, depth: number): Converted {
    if (isScalar(node)) {
      const value = typeof node.value === 'bigint' ? Number(node.value) : node.value;
      // A long string weighs like the nodes its text could have held.
      const size = typeof value === 'string' ? 1 + Math.floor(value.length / STRING_WEIGHT) : 1;
      return { value, size };
    }
    if (isMap(node)) return this.pairs(node.items, depth);
    if (isSeq(node)) {
      this.enter(depth);
      const items: unknown[] = [];
      let size = 1;
      for (const item of node.items as unknown[]) {
        // `[a: 1]`: a pair in a flow sequence is a one-entry map.
        const converted = isPair(item)
          ? this.pairs([item], depth + 1)
          : this.convert(item, depth + 1);
        items.push(converted.value);
        size += converted.size;
      }
      return { value: items, size };
    }
    return this.fail('METADATA_PARSE_FAILED', 'a YAML node is neither a scalar nor a collection');
  }

  /** A map of `pairs` enclosed by `depth` collections. */
  private pairs(pairs: readonly Pair<unknown, unknown>[], depth: number): Converted {
    this.enter(depth);
    const out: Record<string, unknown> = {};
    const seen = new Set<string>();
    let size = 1;
    for (const { key, value } of pairs) {
      if (!isScalar(key)) this.fail('METADATA_PARSE_FAILED', 'map keys must be scalars');
      const entry = this.anchor(key);
      const name = propertyName(key.value);
      if (entry !== undefined) entry.converted = { value: key.value, size: 1 };
      if (seen.has(name)) {
        this.fail('METADATA_PARSE_FAILED', `duplicate key ${JSON.stringify(name.slice(0, 60))}`);
      }
      seen.add(name);
      const converted = this.convert(value, depth + 1);
      Object.defineProperty(out, name, {
        value: converted.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      size += 1 + converted.size;
    }
    return { value: out, size };
  }

  private enter(depth: number): void {
    if (depth >= this.caps.maxDepth) {
      this.fail('PARSE_UNSAFE_CONTENT', `nesting is deeper than ${this.caps.maxDepth} levels`);
    }
  }

  private fail(code: 'METADATA_PARSE_FAILED' | 'PARSE_UNSAFE_CONTENT', why: string): never {
    throw new RyeError(code, `Cannot parse YAML in ${this.source}: ${why}`, {
      source: this.source,
    });
  }
}

/** The property a scalar key names, as the library's toJS spells it (null → ''). */
function propertyName(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

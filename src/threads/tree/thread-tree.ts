import { realpathSync } from 'node:fs';
import { fingerprintOf, publicPemOf, type Signer } from '../../integrity/index.js';
import { audienceOf, type HolderKey, type TokenTrust } from '../../capabilities/index.js';
import type { BudgetStore } from '../budget/index.js';
import type { Clock, RandomSource } from '../../ids/index.js';
import type { ThreadResult } from '../loop/thread-result.js';
import type { ThreadRun } from '../loop/thread-run.js';
import type { RegistryDb } from '../store/index.js';
import { macKeyring, type MacKeyring } from '../transcript/index.js';
import type { Spawn } from './spawn-request.js';

/** One thread of an in-process tree. */
export interface TreeNode {
  readonly threadId: string;
  readonly parentId: string | null;
  readonly depth: number;
  readonly run: ThreadRun;
  /** Its in-memory key pair: signs its children's token blocks, never leaves the process. */
  readonly holder: HolderKey;
  /** Its `rye-cap-v1` chain, bare (a secret: never written, logged or handed to a tool). */
  readonly token: string;
  readonly children: string[];
  /** Spawns admitted but not yet counted, so parallel calls cannot pass the limit together. */
  pendingSpawns: number;
  /** Set once the thread ended. */
  result: ThreadResult | undefined;
  /** Settles with the result; never rejects. */
  done: Promise<ThreadResult>;
}

/**
 * The threads one `rye` process runs as a tree (THREADS.md §1): the shared
 * registry and ledger, the user key, and every node by id. Lives as long as
 * the root thread runs.
 */
export class ThreadTree {
  readonly projectRoot: string;
  readonly registry: RegistryDb;
  readonly budget: BudgetStore;
  readonly signer: Signer;
  readonly clock: Clock;
  /** Where child thread ids and token ids draw their random bits. */
  readonly random: RandomSource;
  readonly trust: TokenTrust;
  /** The user's per-thread transcript MAC keys. */
  readonly mac: MacKeyring;
  /** Starts a child of one of the tree's runs (spawnChild). */
  readonly spawn: Spawn;
  readonly #nodes = new Map<string, TreeNode>();

  constructor(options: {
    projectRoot: string;
    registry: RegistryDb;
    budget: BudgetStore;
    signer: Signer;
    clock: Clock;
    random: RandomSource;
    spawn: Spawn;
  }) {
    this.projectRoot = options.projectRoot;
    this.registry = options.registry;
    this.budget = options.budget;
    this.signer = options.signer;
    this.mac = macKeyring(options.signer);
    this.clock = options.clock;
    this.random = options.random;
    this.spawn = options.spawn;
    const userPublicKey = publicPemOf(options.signer.privateKey);
    this.trust = {
      userPublicKey,
      audience: audienceOf(realpathSync(options.projectRoot), fingerprintOf(userPublicKey)),
    };
  }

  add(node: TreeNode): void {
    this.#nodes.set(node.threadId, node);
    if (node.parentId !== null) this.#nodes.get(node.parentId)?.children.push(node.threadId);
  }

  node(threadId: string): TreeNode | undefined {
    return this.#nodes.get(threadId);
  }

  /** `threadId`'s node when it is a strict descendant of `ancestorId`; undefined otherwise. */
  descendantOf(ancestorId: string, threadId: string): TreeNode | undefined {
    const node = this.#nodes.get(threadId);
    for (let up = node?.parentId ?? null; up !== null; up = this.#nodes.get(up)?.parentId ?? null)
      if (up === ancestorId) return node;
    return undefined;
  }
}

const nodes = new WeakMap<ThreadRun, { tree: ThreadTree; node: TreeNode }>();

/** Remember which tree and node a run belongs to. */
export function bindRun(run: ThreadRun, tree: ThreadTree, node: TreeNode): void {
  nodes.set(run, { tree, node });
}

/** The tree and node of a run admitted into a tree; undefined for a lone thread. */
export function treeOf(run: ThreadRun): { tree: ThreadTree; node: TreeNode } | undefined {
  return nodes.get(run);
}

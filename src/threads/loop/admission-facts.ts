/**
 * Before the first turn: what admitting a thread fixes from its plan, its
 * prices and spend limit, and its `thread.json` as it starts.
 */
import { RyeError, isRyeError } from '../../errors/index.js';
import {
  parsePricing,
  parseUsd,
  requirePricedForLimit,
  type ModelPricing,
  type Nanos,
} from '../budget/index.js';
import { admittedHookRecord } from '../directive/index.js';
import type { Clock } from '../../ids/index.js';
import type { DirectivePlan } from '../admission/index.js';
import type { ThreadRecord } from '../store/index.js';
import { ZERO_COST } from '../transcript/index.js';

/**
 * What the ledger needs from a plan, checked before anything is written: the
 * prices (zero when unpriced) and the spend limit (null = unlimited).
 *
 * @throws RyeError PROVIDER_MODEL_UNKNOWN (no model), BUDGET_UNPRICED_MODEL
 *   (a finite spend limit and no prices)
 */
export function pricingOf(plan: DirectivePlan): {
  pricing: ModelPricing;
  limitNanos: Nanos | null;
} {
  const model = plan.model;
  if (model === null)
    throw new RyeError(
      plan.model_error?.code ?? 'PROVIDER_MODEL_UNKNOWN',
      `Cannot run directive ${plan.directive.id}: ${plan.model_error?.message ?? 'no model resolved'}`,
      { item_id: plan.directive.id },
    );
  const spend = parseUsd(plan.limits.spend, 'spend');
  const limitNanos = spend === 0 ? null : spend;
  let pricing: ModelPricing | undefined;
  try {
    pricing = parsePricing(model.pricing, model.model);
  } catch (error) {
    if (!isRyeError(error, 'BUDGET_UNPRICED_MODEL')) throw error;
  }
  requirePricedForLimit(pricing, limitNanos, model.model);
  return { pricing: pricing ?? { input: 0, output: 0 }, limitNanos };
}

/** Where a thread sits in its tree, from the trusted parent record (a root: itself, depth 0). */
export interface Lineage {
  readonly tree: string;
  readonly parent: string | null;
  readonly depth: number;
  readonly token: { readonly jti: string; readonly exp: number } | null;
}

/** The `thread.json` of a thread being admitted, status `running`. Pure. */
export function recordOf(
  plan: DirectivePlan,
  threadId: string,
  clock: Clock,
  lineage: Lineage,
): ThreadRecord {
  const now = new Date(clock.now()).toISOString();
  return {
    thread_id: threadId,
    tree: lineage.tree,
    parent: lineage.parent,
    depth: lineage.depth,
    directive: {
      id: plan.directive.id,
      space: plan.directive.space,
      content_sha256: plan.directive.content_sha256,
      coverage: 'full',
    },
    inputs: plan.inputs,
    model: plan.model,
    limits: { ...plan.limits },
    caps: [...plan.capabilities],
    caps_dropped: [...plan.caps_dropped],
    token: lineage.token === null ? null : { ...lineage.token },
    hooks_admitted: plan.hooks.map(admittedHookRecord),
    status: 'running',
    created_at: now,
    updated_at: now,
    cost: { ...ZERO_COST },
  };
}

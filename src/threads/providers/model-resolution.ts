import { RyeError } from '../../errors/index.js';
import type { ModelInfo } from './descriptor-fields.js';
import type { ProviderDescriptor } from './provider-config.js';

/** The provider used when neither the directive nor `$RYE_PROVIDER` names one. */
export const DEFAULT_PROVIDER = 'anthropic';

/** What a directive's `<model provider? id? tier?>` asks for. */
export interface ModelChoice {
  readonly provider?: string | undefined;
  readonly id?: string | undefined;
  readonly tier?: string | undefined;
}

export interface ResolvedModel {
  readonly provider: string;
  readonly model: string;
  readonly info: ModelInfo;
  /** Whether the listed id or the tier picked it. */
  readonly via: 'id' | 'tier';
}

/**
 * The provider id for a choice: `<model provider>`, else `$RYE_PROVIDER`
 * (from the process environment), else `anthropic`. Pure.
 */
export function providerIdFor(choice: ModelChoice, env: NodeJS.ProcessEnv): string {
  if (choice.provider !== undefined && choice.provider !== '') return choice.provider;
  const fromEnv = env['RYE_PROVIDER'];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : DEFAULT_PROVIDER;
}

/**
 * The model a choice names in a descriptor: the `id` when the descriptor
 * lists it, else the model `tiers[tier]` maps to. Pure.
 *
 * @throws RyeError PROVIDER_MODEL_UNKNOWN naming what was asked and what is listed
 */
export function resolveModel(descriptor: ProviderDescriptor, choice: ModelChoice): ResolvedModel {
  const { id, tier } = choice;
  if (id !== undefined && Object.hasOwn(descriptor.models, id)) {
    return { provider: descriptor.id, model: id, info: descriptor.models[id]!, via: 'id' };
  }
  if (tier !== undefined && Object.hasOwn(descriptor.tiers, tier)) {
    const model = descriptor.tiers[tier]!;
    const info = descriptor.models[model];
    // parseProviderDescriptor only keeps tiers that name a listed model.
    if (info !== undefined) return { provider: descriptor.id, model, info, via: 'tier' };
  }
  const asked = [
    ...(id === undefined ? [] : [`id "${id.slice(0, 128)}"`]),
    ...(tier === undefined ? [] : [`tier "${tier.slice(0, 32)}"`]),
  ];
  throw new RyeError(
    'PROVIDER_MODEL_UNKNOWN',
    `Cannot pick a model from provider ${descriptor.id}: ${asked.length === 0 ? 'the directive names no model id or tier' : `it lists no ${asked.join(' and no ')}`}`,
    {
      provider: descriptor.id,
      ...(id === undefined ? {} : { id: id.slice(0, 128) }),
      ...(tier === undefined ? {} : { tier: tier.slice(0, 32) }),
      models: Object.keys(descriptor.models),
      tiers: Object.keys(descriptor.tiers),
    },
  );
}

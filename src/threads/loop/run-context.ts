/**
 * What every phase of a turn shares from its run (opening, request,
 * provider, tool calls): who it is, where it records, what it has spent,
 * its limits, the conversation it sends and where progress lines go.
 */
import type { TranscriptWriter } from '../transcript/index.js';
import type { RequestBody } from './request-body.js';
import type { RunLimits } from './run-limits.js';
import type { RunningCost } from './running-cost.js';

/** One run's shared state, handed to each phase explicitly. */
export interface RunContext {
  readonly threadId: string;
  readonly writer: TranscriptWriter;
  readonly cost: RunningCost;
  readonly limits: RunLimits;
  /** The conversation the next request carries. */
  readonly body: RequestBody;
  readonly progress: (line: string) => void;
}

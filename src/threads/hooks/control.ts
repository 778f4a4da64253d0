import { z } from 'zod';
import type { HookEvent } from '../../items/index.js';

/** The longest compaction summary accepted (characters): a summary must shrink the window. */
export const MAX_SUMMARY_CHARS = 64 * 1024;

/*
 * The control schema of each event with a `control` mode (THREADS.md §12).
 * Objects are not strict: a directive's outputs also carry `outcome`.
 */
const errorControl = z.object({ action: z.enum(['retry', 'fail']) });
const pressureControl = z.object({ summary: z.string().trim().min(1).max(MAX_SUMMARY_CHARS) });

export type ErrorControl = z.infer<typeof errorControl>;
export type PressureControl = z.infer<typeof pressureControl>;

export interface ControlOf {
  error: ErrorControl;
  context_window_pressure: PressureControl;
}

export type ControlEvent = keyof ControlOf & HookEvent;

/** What a control result came to: the value to apply, or why it is refused. */
export type ControlCheck<E extends ControlEvent> =
  { ok: true; value: ControlOf[E] } | { ok: false; problem: string };

/**
 * Check a hook's outputs against its event's control schema. The harness
 * applies only a value that passes; anything else is recorded and ignored.
 * Pure.
 */
export function parseControl<E extends ControlEvent>(event: E, value: unknown): ControlCheck<E> {
  const schema = event === 'error' ? errorControl : pressureControl;
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data as ControlOf[E] };
  const problem = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
  return { ok: false, problem };
}

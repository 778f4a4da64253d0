import type { CodeTable } from './code-table.js';

/** Threads: records, the runner, hooks, transcripts, budgets and directive inputs. */
export const THREAD_CODES = {
  // Directives as programs (issue 13, src/threads/directive).
  INPUTS_INVALID: {
    class: 'usage',
    hint: "The inputs do not match the directive's <inputs>: every problem is listed (unknown, missing required, wrong type); see docs/directives.md.",
  },
  // Thread ids, thread records, tree locks, transcripts and the budget ledger
  // (issue 14; THREADS.md sections 6, 8, 9).
  THREAD_ID_INVALID: {
    class: 'usage',
    hint: 'Thread ids look like <leaf>-<26 base32 chars>, e.g. implement_feature-01jf3k…; `rye thread list` shows them.',
  },
  THREAD_NOT_FOUND: {
    class: 'failure',
    hint: 'No thread with that id under .ai/threads/ of this project; `rye thread list` shows them.',
  },
  THREAD_RECORD_INVALID: {
    class: 'integrity',
    hint: "The thread's thread.json is unsigned, edited, signed by an untrusted key, malformed or another thread's; nothing was run.",
  },
  THREAD_RECORD_FOREIGN: {
    class: 'integrity',
    hint: "The thread's record is signed by a trusted key that is not yours: it is someone else's thread (a project author's, a pulled bundle's). `rye thread show` displays it; resume, rebase, cancel and wait act only on threads your own key signed.",
  },
  THREAD_CANCELLED: {
    class: 'failure',
    hint: 'The thread was cancelled (rye thread cancel, fail_fast, a parent or an MCP client); its transcript is sealed and it can be resumed.',
  },
  THREAD_LOCKED: {
    class: 'failure',
    hint: "Another live rye process owns this thread's tree; wait for it, or cancel it with `rye thread cancel`.",
  },
  THREAD_INTERRUPTED: {
    class: 'failure',
    hint: 'The process running this call died before it finished; resume the thread to continue.',
  },
  TRANSCRIPT_TAMPERED: {
    class: 'integrity',
    hint: 'The transcript, a checkpoint or an artifact changed after it was written (the error names the seq); nothing was resumed.',
  },
  TRANSCRIPT_INVALID: {
    class: 'integrity',
    hint: 'The transcript chains and verifies but an event is not one rye writes; nothing was resumed.',
  },
  TRANSCRIPT_EVENT_TOO_LARGE: {
    class: 'failure',
    hint: 'An event stays over 512 KiB even with its payload fields spilled to artifacts, or a field is over the artifact cap.',
  },
  BUDGET_AMOUNT_INVALID: {
    class: 'usage',
    hint: 'Amounts are decimal strings of USD with at most 9 fractional digits, e.g. "1.00"; no floats, exponents or negatives.',
  },
  BUDGET_UNPRICED_MODEL: {
    class: 'failure',
    hint: "A finite spend limit needs the model's input and output prices in the provider data; add them or set spend to 0 (unlimited).",
  },
  BUDGET_DENIED: {
    class: 'failure',
    hint: "The request's worst-case cost does not fit what an account on the thread's path has left (raise the spend limit), or an account on the path is closed because its thread ended (details.reason: closed; resume the tree's root instead).",
  },
  BUDGET_BOUND_VIOLATED: {
    class: 'failure',
    hint: 'The provider reported usage above the reserved worst case; the thread was stopped and charged its reservation.',
  },
  BUDGET_ACCOUNT_INVALID: {
    class: 'failure',
    hint: 'The budget account is unknown, exists already, or its parent is missing, closed or in another tree (a bug in the caller).',
  },
  BUDGET_ATTEMPT_INVALID: {
    class: 'failure',
    hint: 'The ledger attempt is unknown, reused, or not in a state that allows this step (a bug in the caller).',
  },
  // The thread runner (issue 14, src/threads/loop; THREADS.md sections 2, 5).
  THREAD_LIMIT_EXCEEDED: {
    class: 'failure',
    hint: 'The thread reached one of its limits (details.limit, current, max). To go on, the operator sets it for this thread: `rye thread resume <id> --message … --limit <limit>=<n>` (signed into the transcript); or raise it in the directive <limits> and sign it again (on `rye execute`, `--limit` only lowers a limit).',
  },
  THREAD_DENIED_REPEATEDLY: {
    class: 'integrity',
    hint: 'The model asked for calls outside its capabilities 5 times in a row; the thread was stopped. Check the transcript for a prompt injection.',
  },
  THREAD_NESTED_DIRECTIVE: {
    class: 'failure',
    hint: 'A directive can run as a child thread only inside a thread tree (not from a thread run alone, nor under RYE_CAP_TOKEN); the model got this as an error result.',
  },
  THREAD_TOOL_UNKNOWN: {
    class: 'usage',
    hint: 'The model called a tool the thread does not offer; it got this as an error result.',
  },
  THREAD_NO_RETURN: {
    class: 'failure',
    hint: 'The directive declares outputs but the model stopped without a valid directive_return, even after a reminder.',
  },
  THREAD_RESUME_PINNED: {
    class: 'integrity',
    hint: 'The directive changed since the thread started (details name both hashes and capability sets); a thread resumes only under the directive it was admitted with; `rye thread resume --rebase` ends it `continued` and runs a successor under the new one.',
  },
  THREAD_RESUME_NO_USAGE: {
    class: 'failure',
    hint: 'A provider attempt of the thread has no usage on record in the transcript or the ledger, so its cost cannot be carried over; the thread cannot resume.',
  },
  // Hooks and compaction (issue 15, src/threads/hooks; THREADS.md section 12).
  THREAD_CONTEXT_EXHAUSTED: {
    class: 'failure',
    hint: 'The conversation outgrew the model context window (measured as characters / 4); declare a context_window_pressure hook whose control answer is a {summary}, or give the task a larger model.',
  },
  THREAD_HOOK_UNAVAILABLE: {
    class: 'failure',
    hint: 'A <directive> hook needs child threads, which this process does not run; the hook was recorded as unavailable and the thread went on.',
  },
  THREAD_HOOK_FAILED: {
    class: 'failure',
    hint: 'A hook child thread ended without completing (see its transcript); the owner thread went on.',
  },
  THREAD_HOOK_CONTROL_INVALID: {
    class: 'failure',
    hint: 'A control hook answered outputs that do not match its event schema ({action: retry|fail} for error, {summary} for context_window_pressure); the answer was ignored.',
  },
  // MCP threads and detached roots (issue 16; docs/mcp.md, THREADS.md sections 11, 13).
  THREAD_FAILED: {
    class: 'failure',
    hint: 'The thread ended without completing (details.thread_status: failed, cancelled, killed…); details hold its outputs and cost, `rye thread show <id>` its record.',
  },
  THREAD_SPAWN_FAILED: {
    class: 'failure',
    hint: 'The detached rye worker exited or stalled before it admitted the thread, so no thread exists; run the directive with thread "wait" (or without --spawn) to see why.',
  },
  // Thread control across processes (issue 14: rye thread cancel|wait|tail; docs/threads.md).
  THREAD_CANCEL_TIMEOUT: {
    class: 'failure',
    hint: "The thread's owner did not end it in time after the cancel request; the request stays recorded and the owner ends the thread when it next looks (every 100 ms). Check the process with `rye thread show`.",
  },
} as const satisfies CodeTable;

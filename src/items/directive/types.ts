/**
 * The typed form of a directive's `<directive>` element (docs/directives.md).
 * Produced only by `readDirectiveProgram` and the `parseDirectiveProgram` functions, which refuse
 * anything they do not know, so every field here was checked.
 */
import type { HookEvent, LimitName, ResultMode, ValueType } from './grammar.js';

/** A JSON value: what inputs and outputs carry. */
export type JsonValue =
  string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** `<model tier id provider>`: at least one of tier and id. */
export interface DirectiveModel {
  readonly tier?: string;
  readonly id?: string;
  readonly provider?: string;
}

/**
 * Declared limits under their short names (THREADS.md §5), only those written.
 * Integers, except `spend`: a decimal USD string. `0` means unlimited.
 */
export type DirectiveLimits = {
  readonly [K in LimitName]?: K extends 'spend' ? string : number;
};

/** One grant as written: verb and type checked, the pattern left raw for the capability module. */
export interface PermissionEntry {
  /** `execute` | `search` | `load` | `sign`. */
  readonly verb: string;
  /** `tool` | `directive` | `knowledge`, or `*` for `<verb>*</verb>` (every type). */
  readonly type: string;
  /** The pattern text, unconverted (`rye.file-system.*` keeps its dots). */
  readonly value: string;
}

/** `<permissions>` as a raw list; empty (fail closed) when the element is absent. */
export interface DirectivePermissionList {
  readonly entries: readonly PermissionEntry[];
  /** `<permissions>*</permissions>`. */
  readonly everything: boolean;
  /** `<acknowledge risk="unrestricted"/>` inside `<permissions>`. */
  readonly acknowledgeUnrestricted: boolean;
  /**
   * `<sandbox write="a/** b/{input:name}/**" network="false"/>`: what the
   * thread's tools' sandboxes are narrowed to (never widened); `write` entries
   * may hold `{input:name}` placeholders, filled at admission.
   */
  readonly sandbox?: DirectiveSandbox;
}

/** A directive's `<sandbox>` inside `<permissions>`. */
export interface DirectiveSandbox {
  readonly write?: readonly string[];
  readonly network?: boolean;
  readonly daemon?: boolean;
}

/** `<input name type required default>description</input>` of `<inputs>`. */
export interface DirectiveInputDecl {
  readonly name: string;
  readonly type: ValueType;
  readonly required: boolean;
  /** The `default` attribute parsed to `type`. */
  readonly default?: JsonValue;
  readonly description: string;
}

/** A step child: `<execute>`, `<load>`, `<search>` or `<sign>`. */
export interface StepAction {
  readonly verb: 'execute' | 'load' | 'search' | 'sign';
  readonly itemType: string;
  /** Every verb but `search`; may hold `{input:x}`. */
  readonly itemId?: string;
  /** `search` only. */
  readonly query?: string;
  /** `<param name value>` children (`execute` only), in a null-prototype record. */
  readonly params: Readonly<Record<string, string>>;
}

/** `<step name parallel>`. */
export interface DirectiveStep {
  readonly name: string;
  readonly description: string;
  readonly parallel: boolean;
  readonly actions: readonly StepAction[];
}

/** `<hook event when ratio result_mode>` with one `<directive>` or `<tool>` action. */
export interface DirectiveHook {
  readonly event: HookEvent;
  /** `limit` hooks only; absent = any limit. */
  readonly when?: string;
  /** `context_window_pressure` only, as declared (default applied at admission). */
  readonly ratio?: number;
  /** As declared; the event's default is applied at admission. */
  readonly resultMode?: ResultMode;
  readonly action: { readonly kind: 'directive' | 'tool'; readonly itemId: string };
  /** `<inputs><input name value/></inputs>`: directive inputs or tool parameters. */
  readonly inputs: Readonly<Record<string, string>>;
}

/** `<output name type required>description</output>`. */
export interface DirectiveOutputDecl {
  readonly name: string;
  readonly type: ValueType;
  readonly required: boolean;
  readonly description: string;
}

/** `<outputs>`: summary templates and typed fields. */
export interface DirectiveOutputs {
  readonly success?: string;
  readonly failure?: string;
  readonly fields: readonly DirectiveOutputDecl[];
}

/** A directive, fully checked. Text fields are un-interpolated (`{input:x}` kept). */
export interface DirectiveProgram {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly category?: string;
  readonly author?: string;
  readonly model?: DirectiveModel;
  readonly limits: DirectiveLimits;
  readonly permissions: DirectivePermissionList;
  readonly inputs: readonly DirectiveInputDecl[];
  readonly process: readonly DirectiveStep[];
  readonly hooks: readonly DirectiveHook[];
  readonly successCriteria: readonly string[];
  /** Absent when the directive declares no `<outputs>` (no `directive_return`). */
  readonly outputs?: DirectiveOutputs;
}

import { RyeError, isRyeError, type ErrorCode } from '../errors/index.js';
import { readSigner } from '../integrity/index.js';
import {
  parsePermissions,
  ensureSelfTrusted,
  keyDir,
  readItemMetadata,
  selectItems,
  signItemFile,
  type ItemType,
  type SpaceName,
} from '../items/index.js';
import { requireAllowed } from '../capabilities/index.js';
import type { OperationContext } from './context.js';
import { lintOrchestrator, type OrchestratorWarning } from './orchestrator-lint.js';

/** A tool's permissions declare something that has no effect (PERMISSIONS_SECRET_ENV). */
export interface PermissionWarning {
  readonly tool: string;
  readonly code: string;
  readonly field: string;
  readonly message: string;
}

export interface SignRequest {
  readonly itemType: ItemType;
  /** An item id or a glob (`apps/x/*` one level, `apps/x/**` all below). */
  readonly pattern: string;
  /** project (default) or user; system space is read-only. */
  readonly space?: SpaceName;
}

/** What `sign` did: the document the CLI's `--json`, MCP and threads share. */
export interface SignReport {
  readonly ok: boolean;
  readonly summary: { readonly signed: number; readonly failed: number };
  readonly fingerprint: string;
  readonly signed: readonly {
    readonly item_type: ItemType;
    readonly item_id: string;
    readonly space: string;
    readonly path: string;
    readonly role: string;
    readonly content_hash: string;
    /** Already signed by this key over this content: the file was left byte for byte. */
    readonly unchanged: boolean;
  }[];
  readonly failed: readonly {
    readonly item_type: ItemType;
    readonly item_id: string;
    readonly path: string;
    readonly code: ErrorCode;
    readonly message: string;
    readonly details: unknown;
  }[];
  readonly self_trusted: string | null;
  readonly stale_lockfiles: readonly { path: string; tool_id: string; pins: string }[];
  /** Orchestrators whose child directives would lose declared capabilities (advice, not refusal). */
  readonly warnings: readonly (OrchestratorWarning | PermissionWarning)[];
}

/**
 * Validate and sign the selected items with the user key, under the call's
 * authority: every selected item must be allowed `sign` before any is
 * written, so a pattern reaching one forbidden item signs nothing.
 *
 * @throws RyeError SPACE_READ_ONLY, CAPABILITY_DENIED, ITEM_NOT_FOUND, key errors
 */
export async function signOperation(
  ctx: OperationContext,
  request: SignRequest,
): Promise<SignReport> {
  const space = request.space ?? 'project';
  if (space === 'system')
    throw new RyeError('SPACE_READ_ONLY', 'Cannot sign in system space: it is read-only', {
      space,
    });
  const items = await selectItems(ctx.spaces, request.itemType, request.pattern, [space]);
  for (const item of items) requireAllowed(ctx.authority, 'sign', item.itemType, item.itemId);
  const signer = await readSigner(keyDir(ctx.spaces));
  const signed = [];
  const failed = [];
  for (const item of items) {
    try {
      signed.push(await signItemFile(item, signer));
    } catch (error) {
      if (!isRyeError(error)) throw error;
      failed.push({ item, error });
    }
  }
  const trustedAt = signed.length > 0 ? await ensureSelfTrusted(ctx.spaces, signer) : null;
  // Lockfiles pinning what was just re-signed are stale now; say so where the signing
  // happens. An unchanged item kept its bytes: nothing pinning it went stale.
  const rewritten = signed.filter((s) => !s.unchanged);
  const stale =
    request.itemType === 'tool' && rewritten.length > 0
      ? await (
          await import('../lockfile/index.js')
        ).lockfilesAffectedBy(
          ctx.spaces,
          rewritten.map((s) => s.item),
        )
      : [];
  const warnings: (OrchestratorWarning | PermissionWarning)[] = [];
  for (const s of signed) {
    if (s.item.itemType === 'tool') {
      const meta = await readItemMetadata(s.item);
      if (meta.kind !== 'tool' || !meta.isEntryPoint) continue;
      for (const w of parsePermissions(meta.fields.permissions).warnings)
        warnings.push({
          tool: s.item.itemId,
          code: w.code ?? 'PERMISSIONS_WARNING',
          field: w.field,
          message: `${s.item.itemId}: ${w.field}: ${w.message}`,
        });
      continue;
    }
    if (s.item.itemType !== 'directive') continue;
    const meta = await readItemMetadata(s.item);
    if (meta.kind === 'directive' && meta.program !== undefined)
      warnings.push(...(await lintOrchestrator(ctx.spaces, s.item.itemId, meta.program)));
  }
  return {
    ok: failed.length === 0,
    summary: { signed: signed.length, failed: failed.length },
    fingerprint: signer.fingerprint,
    signed: signed.map((s) => ({
      item_type: s.item.itemType,
      item_id: s.item.itemId,
      space: s.item.space,
      path: s.item.path,
      role: s.role,
      content_hash: s.fields.contentHash,
      unchanged: s.unchanged,
    })),
    failed: failed.map((f) => ({
      item_type: f.item.itemType,
      item_id: f.item.itemId,
      path: f.item.path,
      ...f.error.toJSON(),
    })),
    self_trusted: trustedAt,
    stale_lockfiles: stale.map((l) => ({ path: l.path, tool_id: l.toolId, pins: l.pins })),
    warnings,
  };
}

import { readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  artifactDigest,
  resolveArtifacts,
  writeArtifactSync,
} from '../../../src/threads/transcript/index.js';
import { expectRyeError } from '../support.js';
import { newTranscript, verifyFile } from './transcript-fixtures.js';

function spilled(): ReturnType<typeof newTranscript> & { hex: string } {
  const t = newTranscript();
  const big = 'y'.repeat(600_000);
  t.writer.append('tool_call_result', {
    call_id: 'c',
    ok: true,
    output: big,
    bytes: big.length,
    truncated: false,
  });
  t.writer.close();
  const [hex = ''] = readdirSync(t.artifacts);
  return { ...t, hex };
}

describe('artifacts', () => {
  it('refuse an artifact whose content changed, naming the seq of its event', () => {
    const t = spilled();
    writeFileSync(join(t.artifacts, t.hex), JSON.stringify('z'.repeat(600_000)));
    const events = verifyFile(t.path, t.thread).events; // the chain itself is intact
    const error = expectRyeError(
      () => resolveArtifacts(events, t.artifacts),
      'TRANSCRIPT_TAMPERED',
    );
    expect(error.details).toMatchObject({ seq: 1, artifact: t.hex });
  });

  it('refuse a missing, resized or symlinked artifact', () => {
    const missing = spilled();
    rmSync(join(missing.artifacts, missing.hex));
    expectRyeError(
      () => resolveArtifacts(verifyFile(missing.path, missing.thread).events, missing.artifacts),
      'TRANSCRIPT_TAMPERED',
    );

    const resized = spilled();
    writeFileSync(join(resized.artifacts, resized.hex), '"short"');
    expectRyeError(
      () => resolveArtifacts(verifyFile(resized.path, resized.thread).events, resized.artifacts),
      'TRANSCRIPT_TAMPERED',
    );

    const linked = spilled();
    const elsewhere = join(linked.dir, 'elsewhere');
    writeFileSync(elsewhere, JSON.stringify('y'.repeat(600_000)));
    rmSync(join(linked.artifacts, linked.hex));
    symlinkSync(elsewhere, join(linked.artifacts, linked.hex));
    expectRyeError(
      () => resolveArtifacts(verifyFile(linked.path, linked.thread).events, linked.artifacts),
      'TRANSCRIPT_TAMPERED',
    );
  });

  it('are rewritten when damaged and written again', () => {
    const t = spilled();
    writeFileSync(join(t.artifacts, t.hex), 'garbage');
    const ref = writeArtifactSync(t.artifacts, JSON.stringify('y'.repeat(600_000)));
    expect(artifactDigest(ref)).toBe(t.hex);
    expect(
      resolveArtifacts(verifyFile(t.path, t.thread).events, t.artifacts)[1]?.payload['output'],
    ).toHaveLength(600_000);
  });

  it('accept only well-formed references', () => {
    const hex = 'a'.repeat(64);
    expect(artifactDigest({ $artifact: `sha256:${hex}`, bytes: 3 })).toBe(hex);
    for (const bad of [
      { $artifact: `sha256:${hex}`, bytes: -1 },
      { $artifact: `sha256:${hex}`, bytes: 1.5 },
      { $artifact: `sha256:../${hex}`, bytes: 3 },
      { $artifact: `md5:${hex}`, bytes: 3 },
      { $artifact: `sha256:${hex}`, bytes: 3, extra: 1 },
      { $artifact: `sha256:${hex.toUpperCase()}`, bytes: 3 },
    ]) {
      expect(artifactDigest(bad)).toBeUndefined();
    }
  });
});

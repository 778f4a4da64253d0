/**
 * How far a bundle transfer is, reported as it goes: the CLI draws it as a
 * bar on a terminal, and nothing anywhere else.
 */
export interface TransferProgress {
  /** `verify` (local files against the manifest), `upload` (blobs sent), `download` (blobs fetched). */
  readonly phase: 'verify' | 'upload' | 'download';
  /** Files (for transfers: distinct blobs) done, and their total. */
  readonly files: number;
  readonly filesTotal: number;
  /** Bytes read or transferred so far. */
  readonly bytes: number;
  /** Bytes to transfer in all, or null when not known in advance (uploads learn sizes as they read). */
  readonly bytesTotal: number | null;
}

export type TransferProgressFn = (progress: TransferProgress) => void;

/**
 * A file or folder whose newest timestamp is closer to the indexing time than
 * this may still change without its size, mtime or ctime moving (timestamps
 * tick coarser than writes: a jiffy on Linux, 2 s on FAT), so its row is
 * marked racy and checked again by the next search that relies on it, until
 * the window has passed (git's "racy clean" rule).
 */
export const RACY_WINDOW_NS = 2_000_000_000n;

/** True when the newer of `mtimeNs` and `ctimeNs` is within the racy window of `nowNs`. Pure. */
export function isRacy(mtimeNs: bigint, ctimeNs: bigint, nowNs: bigint): boolean {
  const newest = mtimeNs > ctimeNs ? mtimeNs : ctimeNs;
  return nowNs - newest < RACY_WINDOW_NS;
}

/** Now, in ns since the epoch, at the resolution the racy rule needs. */
export function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

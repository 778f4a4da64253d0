export { runRootThread } from './run-root.js';
export type { RootThreadOptions } from './run-root.js';
export { spawnRootThread } from './spawn-root.js';
export type { SpawnRootOptions } from './spawn-root.js';
export { threadAnswer } from './thread-answer.js';
export {
  MAX_WORKER_JOB_BYTES,
  WORKER_OPTION,
  WORKER_REPORT_FD,
  parseWorkerJob,
  workerJobSchema,
} from './worker-job.js';
export type { WorkerJob, WorkerReport } from './worker-job.js';
export { THREADS_PORT } from './threads-port.js';

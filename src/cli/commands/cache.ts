import { Command } from 'commander';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';

/** `rye cache clear`: remove the verified snapshots tools run from (rebuilt on demand). */
export function cacheCommand(io: CliIo, run: Runner): Command {
  const cache = new Command('cache').description(
    'the verified snapshots tools run from (<user>/.ai/cache/snapshots, or RYE_CACHE_DIR)',
  );
  cache.addCommand(
    withCommonOptions(new Command('clear'))
      .description(
        'remove every verified snapshot; each is rebuilt from verified files on its next run',
      )
      .action((options: CommonOptions) =>
        run(options, async () => {
          const ctx = contextOf(options, io);
          const { cacheDirOf, clearSnapshots } = await import('../../executor/index.js');
          const dir = cacheDirOf(ctx.spaces.user, io.env);
          const removed = clearSnapshots(dir);
          emit(ctx, { ok: true, cache_dir: dir, removed }, [
            `Removed ${removed} verified snapshot${removed === 1 ? '' : 's'} from ${dir}/snapshots`,
          ]);
          return 0;
        }),
      ),
  );
  return cache;
}

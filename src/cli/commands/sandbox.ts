import { Command } from 'commander';
import { contextOf, withCommonOptions, type CliIo, type CommonOptions } from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';

/**
 * `rye sandbox list|stop`: the daemon sandboxes rye started (a tool whose
 * signed permissions say `daemon: true` and left something running). Their
 * records live in the user space; stopping goes by the identity rye
 * recorded (pid, start time, PID namespace), never by a pid in a file.
 */
export function sandboxCommand(io: CliIo, run: Runner): Command {
  const sandbox = new Command('sandbox').description(
    'the daemon sandboxes tools left running (permissions daemon: true): list and stop them',
  );
  sandbox.addCommand(
    withCommonOptions(new Command('list'))
      .description(
        "every daemon sandbox that runs, newest first, with its tool and project (all of the user's projects)",
      )
      .action((options: CommonOptions) =>
        run(options, async () => {
          const ctx = contextOf(options, io);
          const { listDaemons } = await import('../../executor/index.js');
          const { daemons, unreadable } = await listDaemons(ctx.spaces.user);
          const lines =
            daemons.length === 0
              ? ['No daemon sandbox runs']
              : daemons.map(
                  (d) =>
                    `${d.id}  ${d.item_id}  ${d.project}  since ${d.started_at}${d.network ? '  network' : ''}`,
                );
          for (const name of unreadable)
            lines.push(`warning: ${name} is not a record rye wrote; left alone`);
          emit(ctx, { ok: true, daemons, unreadable }, lines);
          return 0;
        }),
      ),
  );
  sandbox.addCommand(
    withCommonOptions(new Command('stop'))
      .argument('<id...>', 'daemon sandbox ids, as `rye sandbox list` shows them')
      .description(
        'stop daemon sandboxes: SIGTERM every process inside, SIGKILL what is left after 2 s',
      )
      .action((ids: string[], options: CommonOptions) =>
        run(options, async () => {
          const ctx = contextOf(options, io);
          // Under a RYE_CAP_TOKEN the runner refused this command (token-gate.ts).
          const { daemonRecord, stopDaemon } = await import('../../executor/index.js');
          // Every id is checked before anything is stopped.
          const records = ids.map((id) => daemonRecord(ctx.spaces.user, id));
          const stopped: { id: string; stopped: boolean }[] = [];
          for (const record of records)
            stopped.push({ id: record.id, stopped: await stopDaemon(ctx.spaces.user, record) });
          emit(
            ctx,
            { ok: true, stopped },
            stopped.map((s) => (s.stopped ? `Stopped ${s.id}` : `${s.id} had already stopped`)),
          );
          return 0;
        }),
      ),
  );
  return sandbox;
}

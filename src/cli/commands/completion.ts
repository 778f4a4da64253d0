import { Argument, Command } from 'commander';
import { completionScript } from '../completion-scripts.js';
import { COMPLETION_SHELLS, completionSpec, type CompletionShell } from '../completion-spec.js';
import type { CliIo } from '../context.js';
import { emit } from '../report.js';
import type { Runner } from '../runner.js';

/**
 * `rye completion bash|zsh|fish`: print a completion script made from the
 * command tree this very binary runs with (its root is the command's parent),
 * so it lists exactly the commands and options of this version.
 */
export function completionCommand(io: CliIo, run: Runner): Command {
  return new Command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(COMPLETION_SHELLS))
    .option('--json', 'print {ok, shell, script} instead of the bare script')
    .addHelpText(
      'after',
      '\nLoad it now:  source <(rye completion bash)   (zsh: the same; fish: rye completion fish | source)',
    )
    .action((shell: CompletionShell, options: { json?: boolean }, command: Command) =>
      run(options, async () => {
        const script = completionScript(shell, completionSpec(command.parent ?? command));
        // The bare script is printed as is: it is code for the shell, not a report to escape.
        if (options.json === true) emit({ json: true, io }, { ok: true, shell, script }, []);
        else io.stdout(script);
        return 0;
      }),
    );
}

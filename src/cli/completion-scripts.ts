/**
 * Shell completion scripts for bash, zsh and fish, written from a
 * {@link completionSpec}. Each script finds where the cursor is the same way:
 * it walks the words typed so far, skipping options and the values of options
 * that take one, and extends the command path (`' bundle create'`) only with
 * the names of real subcommands; other words count as positional arguments.
 * Pure: the same tree always gives the same script.
 */
import type { CommandSpec, CompletionShell, OptionSpec, ValueHint } from './completion-spec.js';

/** The completion script for `shell`. */
export function completionScript(shell: CompletionShell, spec: readonly CommandSpec[]): string {
  if (shell === 'bash') return bashScript(spec);
  if (shell === 'zsh') return zshScript(spec);
  return fishScript(spec);
}

const flagsOf = (o: OptionSpec): string[] =>
  [o.short, o.long].filter((f): f is string => f !== null);
const takesValue = (o: OptionSpec): boolean => o.value !== 'none';
const words = (hint: ValueHint): string[] => (Array.isArray(hint) ? [...(hint as string[])] : []);

/** `"|a"|"|b"` for a shell `case` arm, or null when there is nothing to match. */
function caseArm(patterns: readonly string[]): string | null {
  return patterns.length === 0 ? null : patterns.map((p) => `"${p}"`).join('|');
}

/** Every `path|flag` of an option taking a value: the next word is its value, not a command. */
function valuePairs(spec: readonly CommandSpec[]): string[] {
  return spec.flatMap((c) =>
    c.options.filter(takesValue).flatMap((o) => flagsOf(o).map((f) => `${c.path}|${f}`)),
  );
}

function subcommandPaths(spec: readonly CommandSpec[]): string[] {
  return spec.filter((c) => c.path !== '').map((c) => c.path);
}

const HEADER = (shell: string, load: string, keep: string): string =>
  [
    `# rye completion for ${shell}, generated from rye's own command tree (\`rye completion ${shell}\`).`,
    `# Load it now:  ${load}`,
    `# Keep it:      ${keep}`,
  ].join('\n');

function bashScript(spec: readonly CommandSpec[]): string {
  const lines = [
    HEADER(
      'bash',
      'source <(rye completion bash)',
      'rye completion bash > ~/.local/share/bash-completion/completions/rye',
    ),
    '_rye() {',
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
    '  local cmdpath="" word list="" i npos=0 skip=0',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    word="${COMP_WORDS[i]}"',
    '    if ((skip)); then skip=0; continue; fi',
    '    case "$cmdpath|$word" in',
    ...armLine(caseArm(valuePairs(spec)), 'skip=1; continue'),
    '    esac',
    '    case "$word" in -*) continue ;; esac',
    '    case "$cmdpath $word" in',
    ...armLine(caseArm(subcommandPaths(spec)), 'cmdpath="$cmdpath $word"; npos=0'),
    '      *) npos=$((npos + 1)) ;;',
    '    esac',
    '  done',
    '  case "$cmdpath|$prev" in',
  ];
  for (const c of spec)
    for (const o of c.options.filter(takesValue)) {
      const arm = caseArm(flagsOf(o).map((f) => `${c.path}|${f}`));
      if (arm !== null) lines.push(`    ${arm}) ${bashValue(o.value)}; return 0 ;;`);
    }
  lines.push('  esac', '  case "$cmdpath|$npos" in');
  for (const c of spec)
    c.args.forEach((hint, i) => {
      if (hint === 'file' || Array.isArray(hint))
        lines.push(
          `    "${c.path}|${i}") ${hint === 'file' ? 'COMPREPLY=($(compgen -f -- "$cur")); return 0' : `list="${words(hint).join(' ')}"`} ;;`,
        );
    });
  lines.push('  esac', '  case "$cmdpath" in');
  for (const c of spec) {
    const all = [...c.subcommands.map((s) => s.name), ...c.options.flatMap(flagsOf)];
    lines.push(`    "${c.path}") list="$list ${all.join(' ')}" ;;`);
  }
  lines.push(
    '  esac',
    '  COMPREPLY=($(compgen -W "$list" -- "$cur"))',
    '}',
    'complete -F _rye rye',
    '',
  );
  return lines.join('\n');
}

function armLine(arm: string | null, body: string): string[] {
  return arm === null ? [] : [`      ${arm}) ${body} ;;`];
}

function bashValue(hint: ValueHint): string {
  if (hint === 'file') return 'COMPREPLY=($(compgen -f -- "$cur"))';
  if (Array.isArray(hint)) return `COMPREPLY=($(compgen -W "${hint.join(' ')}" -- "$cur"))`;
  return 'COMPREPLY=()';
}

/** A single-quoted zsh word: backslashes are literal there; `'` is closed, escaped, reopened. */
function quoted(text: string): string {
  return `'${oneLine(text).replace(/'/g, `'\\''`)}'`;
}

/** A single-quoted fish word: inside, `\\` and `\'` are the only escapes. */
function fishQuoted(text: string): string {
  return `'${oneLine(text).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A description from rye's own command tree on one line: control characters become spaces. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters never reach a script
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

function zshScript(spec: readonly CommandSpec[]): string {
  const lines = [
    '#compdef rye',
    HEADER(
      'zsh',
      'source <(rye completion zsh)   # after compinit',
      'rye completion zsh > "${fpath[1]}/_rye"',
    ),
    '_rye() {',
    '  local cmdpath="" word prev',
    '  local -i i npos=0 skip=0',
    '  local -a subcommands options values',
    '  for ((i = 2; i < CURRENT; i++)); do',
    '    word="${words[i]}"',
    '    if ((skip)); then skip=0; continue; fi',
    '    case "$cmdpath|$word" in',
    ...armLine(caseArm(valuePairs(spec)), 'skip=1; continue'),
    '    esac',
    '    case "$word" in -*) continue ;; esac',
    '    case "$cmdpath $word" in',
    ...armLine(caseArm(subcommandPaths(spec)), 'cmdpath="$cmdpath $word"; npos=0'),
    '      *) npos+=1 ;;',
    '    esac',
    '  done',
    '  prev="${words[CURRENT-1]}"',
    '  case "$cmdpath|$prev" in',
  ];
  for (const c of spec)
    for (const o of c.options.filter(takesValue)) {
      const arm = caseArm(flagsOf(o).map((f) => `${c.path}|${f}`));
      if (arm !== null) lines.push(`    ${arm}) ${zshValue(o.value)}; return ;;`);
    }
  lines.push('  esac', '  case "$cmdpath|$npos" in');
  for (const c of spec)
    c.args.forEach((hint, i) => {
      if (hint === 'file' || Array.isArray(hint))
        lines.push(
          `    "${c.path}|${i}") ${hint === 'file' ? '_files' : `values=(${words(hint).join(' ')})`} ;;`,
        );
    });
  lines.push('  esac', '  case "$cmdpath" in');
  for (const c of spec) {
    const subs = c.subcommands.map((s) => quoted(`${s.name}:${s.description}`));
    lines.push(
      `    "${c.path}")`,
      `      subcommands=(${subs.join(' ')})`,
      `      options=(${c.options.flatMap(flagsOf).join(' ')}) ;;`,
    );
  }
  lines.push(
    '  esac',
    "  (( ${#subcommands} )) && _describe -t commands 'rye command' subcommands",
    '  (( ${#values} )) && compadd -- "${values[@]}"',
    '  compadd -- "${options[@]}"',
    '}',
    'if [[ "${funcstack[1]}" == _rye ]]; then _rye "$@"; else compdef _rye rye; fi',
    '',
  );
  return lines.join('\n');
}

function zshValue(hint: ValueHint): string {
  if (hint === 'file') return '_files';
  if (Array.isArray(hint)) return `compadd -- ${hint.join(' ')}`;
  return ':';
}

function fishScript(spec: readonly CommandSpec[]): string {
  const lines = [
    HEADER(
      'fish',
      'rye completion fish | source',
      'rye completion fish > ~/.config/fish/completions/rye.fish',
    ),
    'function __rye_state',
    '    set -l cmdpath ""',
    '    set -l npos 0',
    '    set -l skip 0',
    '    for word in (commandline -opc)[2..-1]',
    '        if test $skip -eq 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        switch "$cmdpath|$word"',
    `            case ${valuePairs(spec).map(quoted).join(' ') || "''"}`,
    '                set skip 1',
    '                continue',
    '        end',
    '        switch $word',
    "            case '-*'",
    '                continue',
    '        end',
    '        switch "$cmdpath $word"',
    `            case ${subcommandPaths(spec).map(quoted).join(' ')}`,
    '                set cmdpath "$cmdpath $word"',
    '                set npos 0',
    "            case '*'",
    '                set npos (math $npos + 1)',
    '        end',
    '    end',
    '    echo "$cmdpath|$npos"',
    'end',
    'function __rye_at --argument-names want',
    '    string match -q -- "$want|*" (__rye_state)',
    'end',
    'function __rye_arg --argument-names want',
    '    test (__rye_state) = "$want"',
    'end',
    'complete -c rye -f',
  ];
  for (const c of spec) {
    const at = `-n ${fishQuoted(`__rye_at ${fishQuoted(c.path)}`)}`;
    for (const s of c.subcommands)
      lines.push(`complete -c rye ${at} -a ${s.name} -d ${fishQuoted(s.description)}`);
    for (const o of c.options) {
      const flags = [
        o.short === null ? '' : `-s ${o.short.slice(1)}`,
        o.long === null ? '' : `-l ${o.long.slice(2)}`,
      ].filter((f) => f !== '');
      lines.push(
        `complete -c rye ${at} ${flags.join(' ')}${fishValue(o.value)} -d ${fishQuoted(o.description)}`,
      );
    }
    c.args.forEach((hint, i) => {
      const arg = `-n ${fishQuoted(`__rye_arg ${fishQuoted(`${c.path}|${i}`)}`)}`;
      if (hint === 'file') lines.push(`complete -c rye ${arg} -F`);
      else if (Array.isArray(hint))
        lines.push(`complete -c rye ${arg} -a ${fishQuoted(hint.join(' '))}`);
    });
  }
  lines.push('');
  return lines.join('\n');
}

function fishValue(hint: ValueHint): string {
  if (hint === 'none') return '';
  if (hint === 'file') return ' -r -F';
  if (Array.isArray(hint)) return ` -x -a ${fishQuoted(hint.join(' '))}`;
  return ' -x';
}

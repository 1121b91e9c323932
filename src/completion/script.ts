// The completion scripts: each asks `tally complete -- <words>` at every Tab. zsh and fish are
// @bomb.sh/tab's (they quote the words); bash is tally's own (see BASH_SCRIPT).

// tally's own bash script (tab's evaluates the typed words, so Tab on `--param 'x=$(touch F)'`
// would run the command, and declares readonly variables, so sourcing it twice fails). This one
// passes each word as its own argument, filters the answers itself (compgen -W would expand
// them), and can be sourced any number of times, with or without the bash-completion package.
const BASH_SCRIPT = `# bash completion for tally: \`source <(tally completion bash)\` in ~/.bashrc, or save it as
# ~/.local/share/bash-completion/completions/tally (with the bash-completion package).
__tally_complete() {
    local cur cword
    local -a words
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref -n "=:" cur words cword
    else
        # Without bash-completion: readline splits words at = and : (COMP_WORDBREAKS); glue them back,
        # so --swap MODEL=OTHER is one word, as it is to tally.
        words=()
        local i w
        for (( i = 0; i <= \${COMP_CWORD:-0}; i++ )); do
            w=\${COMP_WORDS[i]:-}
            if (( \${#words[@]} > 1 )) && [[ "$w" == [=:] || "\${COMP_WORDS[i-1]}" == [=:] ]]; then
                words[\${#words[@]}-1]+=$w
            else
                words+=("$w")
            fi
        done
        cword=$(( \${#words[@]} - 1 ))
        cur=\${words[cword]}
    fi
    # The words up to the cursor, the one being completed last (empty after a space).
    local -a args=("\${words[@]:1:cword}")
    local out
    out=$(command tally complete -- "\${args[@]}" 2>/dev/null) || return 0
    local directive=0 last=\${out##*$'\\n'}
    if [[ "$last" =~ ^:([0-9]+)$ ]]; then
        directive=\${BASH_REMATCH[1]}
        out=\${out%"$last"}
    fi
    (( directive & 1 )) && return 0
    (( directive & 2 )) && compopt -o nospace 2>/dev/null
    (( directive & 32 )) && compopt -o nosort 2>/dev/null
    (( directive & 4 )) && compopt +o default 2>/dev/null
    COMPREPLY=()
    local line value
    while IFS= read -r line; do
        [[ -z "$line" ]] && continue
        value=\${line%%$'\\t'*}
        [[ "$value" == "$cur"* ]] && COMPREPLY+=("$value")
    done <<< "$out"
    # readline breaks words at = (COMP_WORDBREAKS): a value after one (--swap MODEL=OTHER) replaces only what follows it.
    if [[ "$cur" == *=* && "$COMP_WORDBREAKS" == *=* ]]; then
        local head=\${cur%"\${cur##*=}"} i
        for i in "\${!COMPREPLY[@]}"; do COMPREPLY[i]=\${COMPREPLY[i]#"$head"}; done
    fi
    return 0
}
complete -F __tally_complete tally
`;

export async function completionScript(shell: 'bash' | 'zsh' | 'fish', name: string): Promise<string> {
  if (shell === 'bash') return BASH_SCRIPT;
  const tab = await import('@bomb.sh/tab');
  // tab writes the script with console.log: collect it instead.
  const lines: string[] = [];
  const log = console.log;
  console.log = (...parts: unknown[]) => void lines.push(parts.join(' '));
  try {
    tab.default.setup(name, name, shell);
  } finally {
    console.log = log;
  }
  return `${lines.join('\n')}\n`;
}

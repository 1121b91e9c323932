// The completion scripts of @bomb.sh/tab, which ask `<name> complete -- <words>` at completion
// time. Its bash script relies on _get_comp_words_by_ref from the bash-completion package; where
// that package is missing, a stand-in built on COMP_WORDS and COMP_CWORD takes its place.

const BASH_STAND_IN = `# Without the bash-completion package, a minimal _get_comp_words_by_ref for this script.
if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
_get_comp_words_by_ref() {
    local cword_=\${COMP_CWORD:-0}
    while [[ $# -gt 0 ]]; do
        case "$1" in
            -n) shift ;;
            cur) cur=\${COMP_WORDS[cword_]:-} ;;
            prev) prev=\${COMP_WORDS[cword_-1]:-} ;;
            words) words=("\${COMP_WORDS[@]}") ;;
            cword) cword=$cword_ ;;
        esac
        shift
    done
}
fi
`;

export async function completionScript(shell: 'bash' | 'zsh' | 'fish', name: string): Promise<string> {
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
  const script = `${lines.join('\n')}\n`;
  return shell === 'bash' ? `${BASH_STAND_IN}\n${script}` : script;
}

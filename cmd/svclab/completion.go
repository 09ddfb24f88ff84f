package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"

	"github.com/svclab/svclab/sim/scenario"
)

func init() {
	register(&command{name: "completion", summary: "print a shell completion script (bash, zsh, fish)", usage: completionUsage, run: runCompletion})
	register(&command{name: "__complete", summary: "completion candidates (used by the scripts)", usage: "Usage: svclab __complete WORD...\n", run: runComplete, hidden: true})
}

const completionUsage = `Usage: svclab completion bash|zsh|fish

Prints a script that completes svclab's commands, each command's flags and
the embedded scenario names (after run, up and --scenario). The script asks
svclab itself for the candidates (svclab __complete), so it stays right
when svclab changes.

Examples:
  source <(svclab completion bash)                 # this shell; add it to ~/.bashrc
  svclab completion zsh > "${fpath[1]}/_svclab"    # zsh, then restart it
  svclab completion fish > ~/.config/fish/completions/svclab.fish
`

// completionScripts holds each shell's script.
var completionScripts = map[string]string{
	"bash": `# svclab bash completion: source <(svclab completion bash)
_svclab() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local IFS=$'\n'
  COMPREPLY=( $(compgen -W "$(svclab __complete "${COMP_WORDS[@]:1:$((COMP_CWORD-1))}" 2>/dev/null)" -- "$cur") )
}
complete -o default -F _svclab svclab
`,
	"zsh": `#compdef svclab
# svclab zsh completion: svclab completion zsh > "${fpath[1]}/_svclab"
_svclab() {
  local -a candidates
  candidates=("${(@f)$(svclab __complete "${(@)words[2,CURRENT-1]}" 2>/dev/null)}")
  compadd -a candidates
  _files
}
compdef _svclab svclab
`,
	"fish": `# svclab fish completion: svclab completion fish > ~/.config/fish/completions/svclab.fish
complete -c svclab -f -a '(svclab __complete (commandline -opc)[2..-1])'
`,
}

func runCompletion(args []string, stdout, _ io.Writer) error {
	fs := newFlagSet("completion")
	addFormatFlag(fs, formatText) // a script is text
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 || completionScripts[rest[0]] == "" {
		return usagef("give one shell: bash, zsh or fish")
	}
	_, err = io.WriteString(stdout, completionScripts[rest[0]])
	return err
}

// runComplete prints the candidates for the word after args, one a line.
func runComplete(args []string, stdout, _ io.Writer) error {
	for _, c := range completionCandidates(args) {
		fmt.Fprintln(stdout, c)
	}
	return nil
}

// scenarioCommands take a scenario as their argument.
var scenarioCommands = []string{"run", "up"}

// completionCandidates returns what may follow the words typed so far.
func completionCandidates(words []string) []string {
	if len(words) == 0 {
		return commandNames()
	}
	name, last := words[0], words[len(words)-1]
	c, ok := commands[name]
	switch {
	case name == "help":
		return append(commandNames(), "scenario")
	case name == "completion":
		return []string{"bash", "fish", "zsh"}
	case !ok:
		return nil
	case last == "--scenario":
		return scenario.Names()
	}
	out := flagsOf(c.usage)
	if slices.Contains(scenarioCommands, name) {
		out = append(out, scenario.Names()...)
	}
	return out
}

var usageFlag = regexp.MustCompile(`(?m)^\s+(--[a-z][a-z0-9-]*)`)

// flagsOf lists the --flags a command's usage text documents, once each.
func flagsOf(usage string) []string {
	var out []string
	for _, m := range usageFlag.FindAllStringSubmatch(usage, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	slices.Sort(out)
	return out
}

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDidYouMean: a mistyped command, flag or scenario name gets the
// nearest known one in its error, with exit 2.
func TestDidYouMean(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"command", []string{"rnu"}, `unknown command "rnu" (did you mean run?)`},
		{"help topic", []string{"help", "gaet"}, `unknown command "gaet" (did you mean gate?)`},
		{"flag", []string{"gate", "--treshold", "3", "a", "b"}, "-treshold (did you mean --threshold?)"},
		{"scenario", []string{"render", "--scenario", "split2"}, "did you mean split-2?"},
		{"nothing close", []string{"xyzzy"}, `unknown command "xyzzy"; run`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCommand(t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.wantErr)
			}
		})
	}
}

func TestScenariosCommand(t *testing.T) {
	stdout, stderr, code := runCommand(t, "scenarios")
	if code != 0 || !strings.Contains(stdout, "split-2") || !strings.Contains(stdout, "The famous 50% split.") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, _, code = runCommand(t, "scenarios", "--format", "json")
	var entries []scenarioEntry
	if err := json.Unmarshal([]byte(stdout), &entries); code != 0 || err != nil || len(entries) < 10 {
		t.Fatalf("exit %d, %v, %d entries", code, err, len(entries))
	}
	for _, e := range entries {
		if e.Name == "" || e.Kind == "" || e.Summary == "" {
			t.Errorf("incomplete entry %+v", e)
		}
	}
	if _, _, code := runCommand(t, "scenarios", "--format", "yaml"); code != 2 {
		t.Errorf("--format yaml: exit %d, want 2", code)
	}
}

func TestCompletionCandidates(t *testing.T) {
	tests := []struct {
		words []string
		want  []string
		not   []string
	}{
		{nil, []string{"run", "gate", "scenarios", "help"}, []string{"__complete"}},
		{[]string{"gate"}, []string{"--threshold", "--scope", "--correction"}, []string{"split-2"}},
		{[]string{"run"}, []string{"split-2", "--dataplane"}, nil},
		{[]string{"render", "--scenario"}, []string{"two-endpoints"}, []string{"--mode"}},
		{[]string{"completion"}, []string{"bash", "zsh", "fish"}, nil},
		{[]string{"nosuch"}, nil, []string{"run"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.words, " "), func(t *testing.T) {
			stdout, _, code := runCommand(t, append([]string{"__complete"}, tt.words...)...)
			got := strings.Split(strings.TrimSpace(stdout), "\n")
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("candidates %v lack %q", got, w)
				}
			}
			for _, w := range tt.not {
				if slices.Contains(got, w) {
					t.Errorf("candidates %v hold %q", got, w)
				}
			}
		})
	}
}

// TestCompletionScriptInBash sources the bash script in a real bash with
// svclab on PATH and completes "svclab ga" and "svclab run spl".
func TestCompletionScriptInBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash: ", err)
	}
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "svclab"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	script := completionScripts["bash"] + `
COMP_WORDS=(svclab ga); COMP_CWORD=1; _svclab; echo "1:${COMPREPLY[*]}"
COMP_WORDS=(svclab run spl); COMP_CWORD=2; _svclab; echo "2:${COMPREPLY[*]}"
`
	cmd := exec.Command(bash, "--norc", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "1:gate") || !strings.Contains(string(out), "2:split-2 split-5") {
		t.Fatalf("bash completion: %v\n%s", err, out)
	}
}

func TestCompletionCommand(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		stdout, _, code := runCommand(t, "completion", shell)
		if code != 0 || !strings.Contains(stdout, "svclab __complete") {
			t.Errorf("%s: exit %d\n%s", shell, code, stdout)
		}
	}
	if _, _, code := runCommand(t, "completion", "tcsh"); code != 2 {
		t.Errorf("tcsh: exit %d, want 2", code)
	}
}

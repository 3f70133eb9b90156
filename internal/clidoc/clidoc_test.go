package clidoc

import (
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

type app struct {
	Verbose bool `help:"Say more. Much more."`
	Run     struct {
		Format string `enum:"a,b" default:"a" help:"The format."`
		File   string `arg:"" help:"A file."`
	} `cmd:"" help:"Run it."`
	Secret struct{} `cmd:"" hidden:""`
}

func model(t *testing.T) *kong.Application {
	t.Helper()
	k, err := kong.New(&app{}, kong.Name("demo"), kong.Description("A demo."))
	if err != nil {
		t.Fatal(err)
	}
	return k.Model
}

func TestCompletion(t *testing.T) {
	for shell, want := range map[string][]string{
		"bash": {"_demo() {", "\t--format) COMPREPLY=($(compgen -W \"a b\" -- \"$cur\")); return ;;", "complete -o filenames -F _demo demo"},
		"zsh":  {"autoload -U +X bashcompinit && bashcompinit\n# bash completion for demo"},
		"fish": {"complete -c demo -l verbose -d \"Say more\"", "complete -c demo -n '__fish_seen_subcommand_from run' -l format -xa \"a b\" -d \"The format\""},
	} {
		var b strings.Builder
		if err := Completion(&b, model(t), shell); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no %q in\n%s", shell, w, b.String())
			}
		}
		if strings.Contains(b.String(), "secret") {
			t.Errorf("%s: a hidden command is completed", shell)
		}
	}
}

func TestMan(t *testing.T) {
	var b strings.Builder
	err := Man(&b, model(t), Page{Version: "v1-x", Name: "does things", Exit: [][2]string{{"0", "all-right"}}, SeeAlso: ".BR true (1)"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`.TH DEMO 1 "" "demo v1\-x" "User Commands"`, ".SS \"demo run FILE\"\nRun it.", `.B \-\-format="a"`, ".B 0\nall\\-right", ".SH SEE ALSO\n.BR true (1)"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("no %q in\n%s", w, b.String())
		}
	}
}

package check

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// lossPhrases are the words a finding's message uses for what a crash can
// leave, and the outcomes each names.
var lossPhrases = []struct {
	words    string
	outcomes []model.Outcome
}{
	{"missing", []model.Outcome{model.Missing}},
	{"empty", []model.Outcome{model.Empty}},
	{"torn", []model.Outcome{model.Torn}},
	{"partial", []model.Outcome{model.Torn, model.Zeros}},
	{"zeros", []model.Outcome{model.Zeros}},
	{"as it was before the run", []model.Outcome{model.Initial}},
	{"an earlier version", []model.Outcome{model.Earlier}},
	{"name its old file again", []model.Outcome{model.Initial, model.Earlier}},
	{"come back", []model.Outcome{model.Initial, model.Earlier, model.Latest, model.Empty, model.Torn, model.Zeros}},
	{"left behind", []model.Outcome{model.Initial, model.Earlier, model.Latest, model.Empty, model.Torn, model.Zeros}},
	{"lose them", []model.Outcome{model.Empty, model.Torn, model.Zeros, model.Initial, model.Earlier, model.Missing}},
}

// TestFindingWordsMatchStates walks every fixture finding and checks that
// the loss its message names is the loss its example state shows: the
// state's outcome is one the message's words name.
func TestFindingWordsMatchStates(t *testing.T) {
	wants := fixtureWants(t)
	for _, w := range wants {
		dir := filepath.Dir(w)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			listing := readListing(t, filepath.Join(dir, "initial.list"))
			for _, existed := range []func(string) (bool, bool){listing.Existed, nil} {
				s, err := parser.Open(filepath.Join(dir, "f-ttt-y-xx.strace"), parser.Options{})
				if err != nil {
					t.Fatal(err)
				}
				res, err := Run(s, Options{Roots: []string{"/tmp/crashsim-fixtures/" + name}, Existed: existed, Models: model.Persistences})
				s.Close()
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range res.findings {
					if f.State == nil {
						continue
					}
					if !namesOutcome(f.Message, model.Outcome(f.State.Outcome)) {
						t.Errorf("%s on %s (listing %v): the message does not name the state's outcome %q:\n  %s\n  state: %s",
							f.Rule.ID, f.Path, existed != nil, f.State.Outcome, f.Message, f.State.Describe())
					}
				}
			}
		})
	}
}

func namesOutcome(msg string, o model.Outcome) bool {
	for _, p := range lossPhrases {
		if !strings.Contains(msg, p.words) {
			continue
		}
		for _, q := range p.outcomes {
			if q == o {
				return true
			}
		}
	}
	return false
}

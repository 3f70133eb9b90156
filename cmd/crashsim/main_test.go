package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the crashsim command inside scripts.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"crashsim": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the end-to-end stories in testdata/script/*.txtar.
// Conditions: [exec:strace] for scripts that need strace, [root] for
// scripts that need root. FIXTURES names the repository's fixtures/ folder.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/script"))
}

// TestAdversarialScripts runs testdata/adversarial/*.txtar: issue 14's
// attacks and accidents, each one guarded (go test ./... -run Adversarial
// runs them with the packages' own adversarial tests).
func TestAdversarialScripts(t *testing.T) {
	testscript.Run(t, scriptParams("testdata/adversarial"))
}

func scriptParams(dir string) testscript.Params {
	return testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			env.Setenv("FIXTURES", filepath.Join(wd, "..", "..", "fixtures"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// chop FILE: remove the final newline, as a trace cut while
			// strace was still writing it ends (txtar files always end in one).
			"chop": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: chop FILE")
				}
				name := ts.MkAbs(args[0])
				b, err := os.ReadFile(name)
				ts.Check(err)
				ts.Check(os.WriteFile(name, bytes.TrimSuffix(b, []byte("\n")), 0o644))
			},
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "root":
				return os.Geteuid() == 0, nil
			case "strace":
				_, err := exec.LookPath("strace")
				return err == nil, nil
			}
			return false, nil
		},
	}
}

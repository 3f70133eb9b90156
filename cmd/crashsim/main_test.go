package main

import (
	"os"
	"os/exec"
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
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			env.Setenv("FIXTURES", wd+"/../../fixtures")
			return nil
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
	})
}

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the crashsim command inside scripts.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"crashsim": main,
		// crashsim-status runs crashsim and says its exit status as the
		// last line on stderr ("exit status 6"), then exits 0, so that a
		// script can check the exact status.
		"crashsim-status": func() {
			code := run(os.Args[1:], os.Stdout, os.Stderr)
			fmt.Fprintf(os.Stderr, "exit status %d\n", code)
			os.Exit(0)
		},
	})
}

// TestScripts runs the end-to-end stories in testdata/script/*.txtar.
// Conditions: [exec:strace] for scripts that need strace, [root] for
// scripts that need root, [fuse] for those that need /dev/fuse. FIXTURES names the repository's fixtures/ folder.
func TestScripts(t *testing.T) {
	runScripts(t, "testdata/script")
}

// TestAdversarialScripts runs testdata/adversarial/*.txtar: issue 14's
// attacks and accidents, each one guarded (go test ./... -run Adversarial
// runs them with the packages' own adversarial tests).
func TestAdversarialScripts(t *testing.T) {
	runScripts(t, "testdata/adversarial")
}

// runScripts runs the scripts of dir. testscript makes a go-test-script*
// directory in $GOTMPDIR (the temp dir by default) to hold their work
// directories, and removes it once every script of dir has run: under
// -run, never, and each run left an empty one behind. It is made in this
// test's own temp dir instead, which the test removes. $GOTMPDIR is read
// only as testscript.Run starts, before any script runs (they are
// parallel subtests, which wait for this function to return).
func runScripts(t *testing.T, dir string) {
	old, had := os.LookupEnv("GOTMPDIR")
	os.Setenv("GOTMPDIR", t.TempDir())
	defer func() {
		if had {
			os.Setenv("GOTMPDIR", old)
		} else {
			os.Unsetenv("GOTMPDIR")
		}
	}()
	testscript.Run(t, scriptParams(t, dir))
}

// shortGuard is the guard line of a script that -short leaves out: it
// needs strace, root and loop devices, /dev/fuse, or an installed
// application (sqlite3, python3 running a checker or a save).
var shortGuard = regexp.MustCompile(`(?m)^(\[!exec:[^\]]*\] )*\[!(exec:strace|root|fuse|exec:sqlite3|exec:python3)\] skip`)

// scriptFiles are the scripts in dir that this run runs: all of them, or
// under -short those without a shortGuard line (each one left out is
// logged).
func scriptFiles(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in %s: %v", dir, err)
	}
	if !testing.Short() {
		return files
	}
	var run []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := shortGuard.Find(b); m != nil {
			t.Logf("-short: %s left out (%s)", filepath.Base(f), m)
			continue
		}
		run = append(run, f)
	}
	return run
}

func scriptParams(t *testing.T, dir string) testscript.Params {
	return testscript.Params{
		Files: scriptFiles(t, dir),
		Setup: func(env *testscript.Env) error {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			env.Setenv("FIXTURES", filepath.Join(wd, "..", "..", "fixtures"))
			// crashsim trace leaves tmpfs out of scope; scripts see one
			// ext4 disk, so that they pass where $WORK is on tmpfs too.
			// Scripts about tmpfs set CRASHSIM_MOUNTINFO themselves.
			mi := env.WorkDir + ".mountinfo"
			if err := os.WriteFile(mi, []byte("1 0 8:1 / / rw - ext4 /dev/sda1 rw\n"), 0o644); err != nil {
				return err
			}
			// It lies beside $WORK, which testscript removes: without
			// this each run left a go-test-script* directory of them in
			// the temp dir.
			env.Defer(func() { os.Remove(mi) })
			env.Setenv("CRASHSIM_MOUNTINFO", mi)
			// Scripts that build a Go program share the build cache.
			if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
				env.Setenv("GOCACHE", string(bytes.TrimSpace(out)))
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"daemons":   cmdDaemons,
			"dead":      cmdDead,
			"nocmdline": cmdNoCmdline,
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
			case "fuse":
				_, err := os.Stat("/dev/fuse")
				return err == nil, nil
			}
			return false, nil
		},
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The adversarial scripts start long-running processes (daemons, a
// command that outlives its trace) and must show that crashsim ends
// them. Each such process is one of this run's own: `daemons NAME...`
// makes $WORK/NAME, a script that writes its pid to $WORK/pids/NAME and
// then execs $WORK/bin/NAME, a copy of sleep (so that its name, as
// crashsim reports it, is NAME). `dead NAME...` then checks those very
// pids, never a pattern matched against every process of the machine.

// daemonScript records its pid and becomes the copy of sleep. It uses no
// external command: the daemons run with env -i (no PATH). It appends: an
// explore with two workers can run the checker that starts it twice
// before the script kills explore, and each copy must be gone (a truncating
// write let two copies write over each other: "301\n5").
const daemonScript = `#!/bin/sh
echo $$ >> "${0%/*}/pids/${0##*/}"
exec "${0%/*}/bin/${0##*/}" "$@"
`

func cmdDaemons(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: daemons NAME...")
	}
	sleep, err := lookSleep()
	ts.Check(err)
	work := ts.Getenv("WORK")
	for _, d := range []string{"bin", "pids"} {
		ts.Check(os.MkdirAll(filepath.Join(work, d), 0o755))
	}
	// A jailed checker is another user: it writes its pid file here
	// (CRASHSIM_CHECKER_WRITABLE names the directory).
	ts.Check(os.Chmod(filepath.Join(work, "pids"), 0o777))
	bin, err := os.ReadFile(sleep)
	ts.Check(err)
	for _, name := range args {
		ts.Check(os.WriteFile(filepath.Join(work, "bin", name), bin, 0o755))
		ts.Check(os.WriteFile(filepath.Join(work, name), []byte(daemonScript), 0o755))
	}
}

func lookSleep() (string, error) {
	for _, p := range []string{"/usr/bin/sleep", "/bin/sleep"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}

// cmdDead waits, up to 15 s, for each daemon NAME to be gone: the process
// whose pid it wrote no longer runs this run's copy of sleep (or is a
// zombie). A daemon that never wrote its pid fails the script too.
func cmdDead(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: dead NAME...")
	}
	work := ts.Getenv("WORK")
	for _, name := range args {
		b, err := os.ReadFile(filepath.Join(work, "pids", name))
		if err != nil {
			ts.Fatalf("daemon %s never started: %v", name, err)
		}
		pids := strings.Fields(string(b))
		if len(pids) == 0 {
			ts.Fatalf("daemon %s wrote no pid", name)
		}
		exe, script := filepath.Join(work, "bin", name), filepath.Join(work, name)
		deadline := time.Now().Add(15 * time.Second)
		for _, p := range pids {
			pid, err := strconv.Atoi(p)
			ts.Check(err)
			for runs(pid, exe, script) {
				if time.Now().After(deadline) {
					ts.Fatalf("daemon %s (pid %d) still runs", name, pid)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
}

// runs says whether pid is a live process running exe, or still the
// script that execs it (its command line names script).
func runs(pid int, exe, script string) bool {
	proc := "/proc/" + strconv.Itoa(pid)
	got, _ := os.Readlink(proc + "/exe")
	cmdline, _ := os.ReadFile(proc + "/cmdline")
	if got != exe && !bytes.Contains(cmdline, []byte(script+"\x00")) {
		return false
	}
	stat, err := os.ReadFile(proc + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name's closing parenthesis.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// cmdNoCmdline fails when a live process's command line holds TEXT, a
// path below $WORK, which no other run shares (a tracer left behind
// names the program it traced).
func cmdNoCmdline(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || !strings.HasPrefix(args[0], ts.Getenv("WORK")+"/") {
		ts.Fatalf("usage: nocmdline $WORK/PATH")
	}
	ents, err := os.ReadDir("/proc")
	ts.Check(err)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(args[0])) {
			ts.Fatalf("process %d still runs: %s", pid, bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		}
	}
}

package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// profileEnv names a file for a CPU profile of the whole run, for `go
// tool pprof`: how the figures in docs/benchmarks.md of what bounds a
// command were taken. For maintainers; no flag shows it in the help.
const profileEnv = "CRASHSIM_CPUPROFILE"

// startProfile starts a CPU profile into a new file name and returns
// what stops it and closes the file. name "" profiles nothing. A file
// that exists is not written over: the run goes on without a profile,
// and a warning on stderr says why.
func startProfile(name string, stderr io.Writer) (stop func()) {
	if name == "" {
		return func() {}
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		fmt.Fprintf(stderr, "crashsim: warning: %s: no CPU profile: %v\n", profileEnv, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintf(stderr, "crashsim: warning: %s: no CPU profile: %v\n", profileEnv, err)
		f.Close()
		os.Remove(name)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "crashsim: warning: %s: %v\n", profileEnv, err)
		}
	}
}

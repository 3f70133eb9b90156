package main

import (
	"fmt"

	"github.com/crashsim/crashsim/explore"
	"github.com/crashsim/crashsim/internal/doctor"
	"github.com/crashsim/crashsim/internal/reap"
	"github.com/crashsim/crashsim/oracle"
)

type doctorCmd struct{}

// Help is the detail under `crashsim doctor --help`.
func (doctorCmd) Help() string {
	return `Looks at this machine and says, one thing a line, what crashsim and its tests can use here and what not: strace and its features (stacks for --stack, --seccomp-bpf, --kill-on-exit), CAP_SYS_ADMIN, loop devices, FUSE, the mkfs tools, Go, a C compiler, Python and a headless Chromium, the memory limit crashsim gives Go's collector, and what crashsim runs killed with their watchdog left behind (the next explore or oracle removes it). Each says what it enables and, when missing, how to get it. It changes nothing and exits 0.`
}

func (doctorCmd) Run(g *Globals) error {
	env := doctor.System()
	env.Memory = func() doctor.MemoryLimit { return memoryLimit }
	env.Leftovers = leftovers
	return doctor.Write(g.stdout, doctor.Check(env))
}

// leftovers lists what explore and oracle runs killed with their watchdog
// left, where their next runs would look by default.
func leftovers() []string {
	var out []string
	for _, l := range append(append(explore.LeftoverDirs(""), oracle.LeftoverDirs()...), reap.FindGroups()...) {
		out = append(out, fmt.Sprintf("%s (pid %d)", l.Path, l.Owner))
	}
	return out
}

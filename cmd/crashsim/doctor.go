package main

import "github.com/crashsim/crashsim/internal/doctor"

type doctorCmd struct{}

// Help is the detail under `crashsim doctor --help`.
func (doctorCmd) Help() string {
	return `Looks at this machine and says, one thing a line, what crashsim and its tests can use here and what not: strace and its features (stacks for --stack, --seccomp-bpf, --kill-on-exit), CAP_SYS_ADMIN, loop devices, FUSE, the mkfs tools, Go, a C compiler, Python and a headless Chromium, and the memory limit crashsim gives Go's collector. Each says what it enables and, when missing, how to get it. It changes nothing and exits 0.`
}

func (doctorCmd) Run(g *Globals) error {
	env := doctor.System()
	env.Memory = func() doctor.MemoryLimit { return memoryLimit }
	return doctor.Write(g.stdout, doctor.Check(env))
}

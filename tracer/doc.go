// Package tracer runs a command under strace with the flags the crash model
// needs, and returns the trace file and the command's exit status. It does
// not read the trace beyond its "+++" lines; package parser does.
//
// # The strace command line
//
// Args builds it from two tables, options (args.go) and the rows of the
// syscall table (internal/syscalls) marked Traced, each entry saying why
// it is there; the table also says which calls are written "?name" and
// which are printed raw. There are two
// recordings. With Options.NoData (crashsim trace: a check needs no written
// bytes) it is
//
//	strace -f -e abbrev=execve,?execveat -s 0 -e trace=...
//	       -e raw=read,readv,?preadv2,write,writev,pwrite64,pwritev -o TRACE -- CMD
//
// for less than plain strace costs: no bytes (the data calls raw, so strace
// prints a written buffer's address and does not read it from the tracee,
// which with -s 0 alone it still would), no timestamps, no -y (the fd model
// resolves paths given the start directory, which crashsim trace writes
// into TRACE.initial; Options.FDPaths, crashsim trace --fd-paths, keeps it
// for the fds another process sends over a Unix socket, which recvmsg
// brings and only -y names) and no --seccomp-bpf. With the filter, strace 6.1
// restarts the tracee with PTRACE_SYSCALL after each traced call returns
// (seccomp_filter_restart_operator), so the next call stops at its entry as
// well as at the filter: a run of traced calls costs three stops each
// instead of two (16k writes: 820-1020 ms against 710-770 without the
// filter), and more again with mmap in the set (1460-1670 ms). It pays off
// only where most calls go untraced. Otherwise (explore, the oracle: every
// byte is needed) it is
//
//	strace -f --seccomp-bpf -ttt -y -xx -e abbrev=execve,?execveat -s 67108864
//	       -e trace=?open,openat,...,exit_group -e raw=read,readv,?preadv2
//	       -o TRACE -- CMD ARGS...
//
// Why:
//
//   - One -f trace into a single -o file, not -ff: strace writes the lines of
//     all processes and threads in the order it saw them, which is the one
//     order the crash model needs. -ff files can only be merged back by
//     timestamp, and equal timestamps leave the order open.
//   - -xx prints every byte of a string as \xNN, so written data is exact and
//     no quoting rule of strace's has to be undone. -s StringLimit makes the
//     bytes complete (see StringLimit for why not more).
//   - -y annotates every fd with its path (write(3</tmp/x>, ...)), so a write
//     is placed even when its open was not traced or came before the trace.
//     Paths inside <> are hex-escaped too under -xx.
//   - -ttt gives absolute times with microseconds.
//   - -e abbrev=execve,?execveat prints everything in full (writev's iovec
//     arrays) except execve's environment: "0x7ffe... /* 39 vars */" instead
//     of every variable of a CI job, secrets included, in a file that is
//     kept. This is -e abbrev=none but for that; an execve argv of more than
//     32 strings ends in "...".
//   - --seccomp-bpf (strace 5.3) makes the kernel stop the tracee only on the
//     traced syscalls; everything else (stat, getpid, mprotect, ...) runs at
//     full speed. This is why the syscall list is short.
//   - --kill-on-exit (strace 6.6) kills the tracees if strace dies.
//   - read, readv and preadv2 are traced only because they move the file
//     offset a later write(2) uses. -e raw= prints them undecoded, with the
//     buffer as an address instead of a copy of the data read:
//     "read(0x3, 0x7ffd..., 0x1000) = 0xbb4". Raw also means numbers in hex
//     and the fd without its -y path; strace has no way to print the fd
//     decoded and the buffer not. pread64 and preadv move no offset and are
//     not traced.
//   - "?name" (strace 4.17) traces a syscall where it exists: open, rename,
//     fork and their kin are absent on arm64 and riscv64, mmap2 and _llseek
//     on 64-bit architectures, and an older strace may not know openat2.
//
// Options the installed strace lacks (by its `strace -V` version) are dropped
// and Options.Log says which and what is lost.
//
// # Where strace writes
//
// -o does not name the trace file but /proc/PID/fd/N, the write end of a
// pipe crashsim holds; a goroutine moves what piled up in it into the trace
// file every few milliseconds (see sink). strace writes a line at a time,
// and small appends to a file cost several microseconds each on ext4 while
// the tracee waits; into a pipe they cost about one. strace marks its
// output close-on-exec, so the traced program gets no extra fd. It gets
// every fd crashsim's caller gave crashsim at the same number, 3 and up
// too (see package reap), as under strace alone.
//
// # Signals and cleanup
//
// Run is four steps: planRun finds strace and the command and builds the
// command line; start starts strace under a keeper; supervise passes
// signals on, stops the run on cancellation and ends the leftovers; and
// collect empties the trace and reads the command's exit status.
//
// strace does not run as crashsim's child but as the child of a keeper
// (see package reap): crashsim's binary started again, a child subreaper,
// in a cgroup of the run's own where crashsim may make one. Every process
// strace and the command start stays below the keeper, a daemon that
// called setsid and cleared its environment too. strace gets a
// parent-death signal (SIGKILL) tied to the keeper.
//
// strace runs in a process group of its own, and the command and all its
// descendants with it. strace started as `strace -o FILE CMD` blocks SIGINT,
// SIGTERM and SIGHUP for itself (its -I3 default) and keeps tracing, so a
// signal sent to the group reaches the traced programs, strace records how
// they end, and exits when the last one has. Run passes SIGINT, SIGTERM and
// SIGHUP it receives to that group; a cancelled context sends SIGTERM and,
// GracePeriod later, kills every process of the run but strace, which
// then writes how they ended and exits (or is killed a second later).
// When crashsim runs in the foreground of a terminal, the keeper stays in
// its session and the group is made the terminal's foreground group for
// the run, so Ctrl-C goes straight to the program and an interactive
// program can read the terminal. crashsim then sees a Ctrl-C only in the
// trace (a SIGINT with si_code=SI_KERNEL); a second one, as a second
// SIGINT crashsim receives itself, kills every traced process.
//
// Nothing outlives the run:
//
//   - Options.Linger after the command's first process has exited, what
//     is left of the keeper's tree but strace (daemons included) is
//     killed and listed in Result.Leftovers; strace then exits.
//   - When strace exits, the keeper kills whatever is still below it (a
//     process strace did not follow) before it reports strace's status;
//     those are listed too.
//   - When crashsim is killed, SIGKILL included, the keeper sees its
//     socket close and kills its whole tree. Should the keeper be killed
//     too, the watchdog kills the run's cgroup and every process that
//     carries the run's CRASHSIM_RUN token.
//
// The trace written so far stays usable in every case: strace writes each
// line when the syscall completes.
//
// # Exit status
//
// The command is the first pid in the trace (its execve is the first traced
// syscall). Its "+++ exited with N +++" or "+++ killed by SIG... +++" line
// gives Result.ExitCode, Signal and CoreDumped; package parser reads both
// (parser.ProbeTrace, parser.ExitOf), as it reads every trace byte.
// Without one (strace was killed), strace's own wait status, which the
// keeper reports, is used: strace exits with the command's status, or
// kills itself with the signal that killed the command.
package tracer

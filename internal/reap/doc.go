// Package reap makes sure that what crashsim starts ends with it: every
// process of a traced run, of the oracle's runs and of explore's checkers,
// daemons included, is found, ended and named before crashsim reports,
// and nothing is left when crashsim itself is killed. It is the one
// mechanism trace, explore and the oracle share.
//
// # Containment
//
// Three layers, each a fallback for the one before:
//
//   - A child subreaper. crashsim does not start a program itself but
//     through a keeper (Keep; explore's checker runners, and the
//     starters of its confined checkers, do the same for themselves): crashsim's own binary started again (the hook is this
//     package's init), which sets PR_SET_CHILD_SUBREAPER and starts the
//     program as its child. A process below it whose parent ends becomes
//     the keeper's child, not init's, so the keeper's tree holds every
//     descendant, whatever it did to its session (setsid, a double fork)
//     or its environment (env -i). Descendants and KillTree walk that tree
//     (/proc/PID/task/TID/children, or every process's parent where the
//     kernel has no such files). When the program's first process exits,
//     the keeper kills what is left and says what it was; when crashsim
//     ends, by SIGKILL too, the keeper sees its socket close and kills its
//     whole tree. The program itself has a parent-death signal tied to the
//     keeper.
//   - A cgroup, where crashsim may make one (cgroup v2, as root or where
//     its cgroup was delegated): a Group below crashsim's own cgroup, which
//     the keeper is started into (CLONE_INTO_CGROUP), so that everything
//     below it stays a member even if the keeper is killed too. Kept.Kill
//     and the watchdog kill the group's members (cgroup.kill); the group
//     is removed when the run ends.
//   - A token in the environment of everything crashsim starts
//     (CRASHSIM_RUN, NewToken, Env). /proc/PID/environ shows the
//     environment as it was at execve, whatever the program does to its
//     own variables later, so Holders and Kill find a process that left
//     the tree only when the keeper is gone; one that cleared its
//     environment is not found this way.
//
// # File descriptors
//
// The command a keeper starts gets every fd crashsim's caller gave
// crashsim at the same number (Inherited: the fds open at crashsim's
// start that are not close-on-exec), not only 0, 1 and 2: a program run
// as `prog 3>>log`, or given a pipe on fds 3 and 4 or a socket by systemd,
// works as it does alone. The keeper's socket sits above them, its number
// in the keeper's environment (crashsim sends the spec over it), and is
// close-on-exec in the keeper; everything
// else of crashsim's is close-on-exec. The watchdog gets its pipe at fd 3
// and none of the caller's fds; explore's checker runners mark all but
// their standard fds close-on-exec, so that checkers get none either.
//
// # The watchdog
//
// A parent-death signal reaches only a direct child, and strace 6.1 does
// not set PTRACE_O_EXITKILL (--kill-on-exit is 6.6), so tracees run on
// untraced when strace dies. The watchdog is crashsim's binary started
// again in a session of its own, holding the read end of a pipe whose
// write end only crashsim holds: the pipe's end tells it crashsim is gone.
// It then kills the run's groups, a process group (trace's, where given)
// and every holder of the token, and for the oracle detaches its mounts
// and loop devices (StartMountWatchdog, StartFUSEWatchdog). The keeper
// covers a crashsim killed alone; the watchdog also covers a keeper
// killed with it (a kill of a whole session, the OOM killer), as far as
// the group and the token reach.
//
// # Leftovers of a run killed with its watchdog
//
// When the watchdog is killed too, nothing of the run is left to undo its
// work. Each directory a run makes for itself carries a record of its
// maker from the start (OwnDir: pid, start time, boot, pid namespace), and
// each Group the same in its name; a later run's SweepDirs and SweepGroups
// undo what a maker that is provably gone left (mounts, loop devices,
// the directory, the cgroup and what still runs in it), and nothing else.
//
// # Limits
//
// A process started outside the tree on the program's behalf (by a
// service manager over D-Bus, say) is not the program's descendant and is
// not found. Without a cgroup, a process that leaves its environment
// behind survives a SIGKILL of both crashsim and its keeper.
package reap

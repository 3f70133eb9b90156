// Package explore builds crash states on disk and runs the user's own
// checker on each, as ALICE does: rules know the classic mistakes, only the
// application knows whether what a crash leaves is acceptable.
//
// Terms:
//
//   - The root is the directory the program saved into. A trace path p below
//     it maps to STATE/rel(root, p); paths outside it are out of scope and
//     never written. A path whose relative form climbs out (..) is refused.
//   - The initial snapshot is a copy of the root as it was before the
//     program ran. Every state starts as a copy of it.
//   - A durable copy is explore's own copy of one file as it is on disk
//     (not in the page cache) at the current point of the replay: the
//     initial content (or empty, for a file the trace created) with the
//     data operations the model declared durable applied to it
//     (model.Options.Durable). Durable copies live in the work directory.
//   - A state is one crash state: at a crash point, one changed path takes
//     one of its model.PathStates and every other tracked path holds what
//     the program saw (its durable copy plus every pending operation). The
//     state before the first event is the snapshot itself. States with the
//     same tree (names, kinds, bytes, link targets) are checked once.
//   - The checker is a shell command run with `sh -c` in the state
//     directory; exit 0 accepts the state. Any other exit, or running past
//     the timeout, makes the state a checker-failed finding.
//
// States are built one after another in replay order (durable copies move
// as the replay proceeds); each is complete before a worker runs the
// checker on it. Findings come out in the order the states were built,
// whatever the parallelism.
//
// Each worker runs its checkers through a runner process of its own
// (runner_linux.go), a child subreaper in the run's cgroup where crashsim
// may make one (see package reap), which ends every process of a checker,
// setsid daemons with a clean environment included, before it answers. A
// state's directory is built from the previous one: what the last state
// placed and what its checker changed is undone (reuse.go), so the cost
// of a state follows what differs, not the size of the tree.
//
// The jail (jail_linux.go): with CAP_SYS_ADMIN, a checker sees the world
// as after a reboot and cannot touch the host. It runs in the host's pid
// namespace, so a lock file that names the crashed program's pid and pid
// namespace (Mercurial's) reads as stale; in a mount namespace of the
// runner's where every mount is read-only, nosuid and nodev but its state
// directory and the directories WritableEnv names; with a minimal /dev
// (null, zero, full, random, urandom, tty, a private devpts and an empty
// /dev/shm per state) and no block device; with no capabilities, the
// bounding set emptied, and no_new_privs, so it cannot remount, mount or
// unmount anything. Without CAP_SYS_ADMIN a checker is contained the same
// way but not jailed: it can write what crashsim can.
//
// Safety: every write goes below the work directory. Parents are created
// by explore itself, each component checked with Lstat so that nothing is
// written through a symlink; symlinks from the snapshot or the trace are
// recreated as symlinks and never followed.
package explore

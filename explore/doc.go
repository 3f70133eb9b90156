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
//   - A crash point is the moment after an event that changed something
//     in scope (model.Timeline), or before the first event. A crash after
//     any later event up to the next crash point leaves the same states:
//     the point's span ends at the last event before the next point.
//   - A state is one joint crash state (model.JointState): at a crash
//     point, every tracked path at once as the persistence model allows —
//     which inode each name holds (the pending entry operations that
//     persisted), which of its pending data operations each of those files
//     holds, which directories are gone with their entries. These are the
//     states crashsim states counts. The state before the first event is
//     the snapshot itself.
//   - A point is exhaustive when the model admits at most MaxJoint states
//     there (counted exactly) and every one is built. Past that it is
//     sampled: at most MaxJoint states are built from families, in this
//     order: predicted (the state each of check's findings demonstrates at
//     that line — its path as the finding says, the other operations all
//     persisted where the model allows, then none of them), prefix (the
//     first k pending operations in program order persisted, none after),
//     drop (one pending operation lost, the others persisted as far as the
//     model allows), torn (one pending write cut at a page boundary), and
//     random (Samples states drawn with Seed, the same in every run). A
//     sampled point is never called exhaustive; Result.PointStats says
//     what each point got.
//   - A tree is what a state puts on disk (names, kinds, bytes, link
//     targets). States with the same tree are checked once, at the last
//     crash point that can leave the tree, with CRASHSIM_CRASH_LINE the
//     end of that point's span (the latest crash that leaves it: the most
//     demanding line for a checker that knows when data is durable) and
//     CRASHSIM_FIRST_LINE the first crash point's line that leaves it
//     (each the line that completes its event: a split call's resumed
//     half), CRASHSIM_CRASH_TRACE and CRASHSIM_FIRST_TRACE the trace files those
//     lines are in (each process's own in an -ff set).
//     EveryLine checks a tree once per crash point that leaves it instead.
//   - The checker is a shell command run with `sh -c` in the state
//     directory; exit 0 accepts the state. Any other exit, or running past
//     the timeout, makes the state a checker-failed finding.
//
// Where a tree can occur last is known only once the whole trace is read,
// so the trace is replayed twice. The first replay builds each state in
// memory (vhash.go: what place would write, each file content written and
// hashed once per crash point) and keeps, per distinct tree, its hash,
// first and last crash points and the state's place among the last
// point's: a few dozen bytes. The second replay makes the same states in
// the same order, builds on disk those it checks, at their last points,
// hashes them again (a difference is a bug and stops the run) and hands
// them to the workers. With EveryLine one replay does both.
//
// Findings come out in the order trees were first built, whatever the
// parallelism.
//
// Each worker runs its checkers through a process of its own, a child
// subreaper in the run's cgroup where crashsim may make one (see package
// reap), which ends every process of a checker, setsid daemons with a
// clean environment included, before it answers: the starter of its jail
// (confined_linux.go, zygote_linux.go), or a runner (runner_linux.go). A
// state's directory is built from the previous one: what the last state
// placed and what its checker changed is undone (reuse.go), so the cost
// of a state follows what differs, not the size of the tree.
//
// The jail (jail_linux.go): with CAP_SYS_ADMIN, a checker sees the world
// as after a reboot and cannot touch the host. It runs in the host's pid
// namespace, so a lock file that names the crashed program's pid and pid
// namespace (Mercurial's) reads as stale; in a mount namespace of its
// worker's where every mount is read-only, nosuid and nodev but its state
// directory and the directories WritableEnv names; with a minimal /dev
// (null, zero, full, random, urandom, tty, a private devpts and an empty
// /dev/shm per state) and no block device; with no capabilities, the
// bounding set emptied, and no_new_privs, so it cannot remount, mount or
// unmount anything. It is uid 0 of a user namespace whose uid 0 is, on
// the host, a uid of no user and no other process (one per worker's jail,
// from a range no distribution gives out), with network and IPC
// namespaces of its own (a loopback, up): it cannot signal root's
// processes (its kill -9 -1 reaches only its own), trace them or read
// their /proc files, open root's files and sockets (but in the
// directories ReadableEnv names, read-only), or reach the network or the
// host's abstract sockets; it holds no fd of crashsim's but its stdin,
// stdout and stderr (starters and runners mark every other one
// close-on-exec, inherited ones too). Its state directory is an idmapped mount that
// shows explore's files as the checker's own (git's ownership check
// passes); what it creates is root's on disk. That needs
// idmapped mounts of the work directory's filesystem (Linux 5.12, tmpfs
// from 6.3): without them, or with HostRootEnv, the checker is the host's
// root without capabilities, as before (and in the host's network with
// HostRootEnv), and Result.Unconfined says why. Without CAP_SYS_ADMIN a
// checker is contained the same way but not jailed: it can write what
// crashsim can, as the user crashsim runs as (PostgreSQL's checker runs
// with crashsim as user postgres).
//
// Safety: every write goes below the work directory. Parents are created
// by explore itself, each component checked with Lstat so that nothing is
// written through a symlink; symlinks from the snapshot or the trace are
// recreated as symlinks and never followed.
package explore

// Package model replays trace events through a model of processes, open
// files, inodes and directory entries, each with a page-cache layer (what
// programs see) and a durable layer (what survives a power cut).
//
// Terms:
//
//   - A Process has an fd table (shared by threads with CLONE_FILES) and a
//     cwd (shared with CLONE_FS). An fd names a Handle, the open file
//     description that dup and fork share, with its offset and flags.
//     Under strace -f a child's first calls can come before its parent's
//     clone returns: until it does, the child's table holds what those
//     calls showed, and a record of what they did to it (fds used, made,
//     closed, marked close-on-exec, an execve) is then replayed in order
//     onto the table the child started with, so that an fd it only used
//     is its parent's Handle. An fd whose -y name is a file of no
//     filesystem (/memfd:NAME, /SYSVkey, /dmabuf:NAME) is a pseudo file,
//     as a socket or pipe is.
//   - An Inode is a file or directory; a rename moves a name, never the
//     inode. Its data and size exist twice: in the page cache and on disk.
//     Its data operations (DataOp) are numbered in program order; version h
//     of a file is what the program saw after h of them. The size of a
//     file from before the trace is unknown (-1) until a call shows it: a
//     stat, an lseek to the end, or a read that came back short at a
//     known offset (its end). A read that returned all it asked for
//     shows only that the file held at least that much
//     (Inode.DurableAtLeast), which is no size.
//   - A Name is a path: the inode it names in the page cache and on disk.
//     Entry operations (EntryOp: create, rename, link, unlink, mkdir, rmdir)
//     change names atomically.
//   - A barrier (fsync, fdatasync, a directory fsync, sync, O_SYNC writes)
//     makes pending operations durable; an O_SYNC write only those within
//     the pages it wrote (dsync-range, below). sync_file_range is not one. A failed
//     fsync moves the data it covered to a lost list that no later sync
//     recovers: Linux drops dirty pages after a writeback error. One
//     refused (EBADF, EINVAL, EROFS) or cut off by a signal (EINTR,
//     ERESTARTSYS and the other codes of a restarted call) had none,
//     and changes nothing.
//   - A crash point is the moment after an event; a crash state is the
//     durable state plus some pending operations; an Outcome says what a
//     path holds in it compared with what the program saw.
//
// # Persistence models
//
// posix is the weakest promise, and the default for findings:
//
//   - Any subset of pending operations may persist, in any order. Entry
//     operations are atomic (a rename keeps both names or neither).
//   - A write may persist in part, in 4096-byte pieces: the storage stack
//     writes pages, not calls.
//   - A size change may persist without the data it exposes; those bytes
//     read back as zeros (metadata and data are written separately).
//   - A file fsync makes that file's data and size durable, never its name:
//     fsync(2) says the directory needs its own fsync.
//
// ext4 models ext4 with data=ordered and default options (delalloc,
// auto_da_alloc), each rule for a reason visible in fs/ext4:
//
//   - Metadata persists in program order: the journal commits transactions
//     in order, so a later entry operation never persists without an
//     earlier one.
//   - A file fsync waits for the commit of the transaction that last
//     changed the inode (i_sync_tid): every entry operation up to the
//     file's last change becomes durable with it, whether that commit
//     happens now or happened before on its own (every 5 s on a default
//     mount). The changes are a write (its mtime; a write that grows the
//     file is logged by the sync's own writeback, so the sync commits up
//     to itself, unless a sync_file_range started that writeback before:
//     then any commit since may have logged it, and only what came before
//     the sync_file_range is sure: writeback-started, below), a
//     truncation and an entry operation naming the file.
//     An fsync with nothing new commits nothing (fsync-clean), and one
//     of a file whose last change was committed already leaves later
//     names pending (fsync-old-change, below).
//   - An fdatasync waits for the last change of the file's size or
//     blocks (i_datasync_tid): a write that grows the file, whose new
//     size the sync's own writeback sets, a truncation, its creation
//     (lsm-manifest, below).
//   - A directory fsync forces a full commit (ext4 has no fast path for
//     directories), even with nothing in it changed: every pending entry
//     operation becomes durable, in every directory. It makes no file
//     data durable.
//   - Delayed allocation: unsynced data has no blocks until writeback, so a
//     crash brings back a shorter file — a prefix of its appends, the last
//     one cut at a page — never holes. But writeback can start on its own
//     at any time (the flusher, memory pressure, a sync elsewhere), and with
//     dioread_nolock (the default) it allocates unwritten extents: the
//     journal can commit the new size before the data lands, so unsynced
//     data can also come back as zeros. crashsim oracle --blocks replayed
//     that on a naive save: data.txt with size 10 and its one extent
//     unwritten (debugfs: "(0[u]):8706"), which reads as zeros.
//   - Rewrites in place (writes below the durable size that do not grow
//     the file) persist in any subset, not in program order: writeback
//     writes a file's dirty pages in offset order (overwrite-scatter,
//     below).
//   - auto_da_alloc: a rename over an existing file starts writeback of the
//     renamed file but does not wait for it. The blocks get allocated, so
//     the commit of the rename can carry the new size while the data is
//     still unwritten: such a file can come back full of zeros, which
//     delayed allocation alone never gives. (An earlier version of this
//     model had the data commit with the rename; crashsim oracle saw zeros
//     on a real ext4 and proved it wrong.)
//
// xfs models xfs with default options. Each rule is what crashsim oracle
// showed on xfs (scripts/oracle-fixtures.sh, Linux 6.18, xfsprogs 6.1),
// with the reason in fs/xfs:
//
//   - Metadata persists in log order: the CIL commits checkpoints in
//     order, so a later entry operation never persists without an earlier
//     one. (Every workload: no state broke program order.)
//   - An fsync forces the log up to the file's last change, which holds
//     every earlier entry operation: a new file's name survives its own
//     fsync with its directory never synced (dirsync-file-only: f0.bin
//     latest after fsync of f0.bin), and so does a new parent directory
//     (dir-rename-over: new survives fsync of new/f). It forces nothing
//     when the file has nothing new in the log (xfs_fsync_seq: the inode
//     is not pinned), and the log can have been forced on its own since
//     the change, so, as for ext4, only the entry operations up to the
//     file's last change are sure.
//   - An fdatasync forces the log only for a change of size or blocks,
//     as ext4's commits (lsm-manifest, below).
//   - A directory fsync forces the log too (makedirs-fsync kept d after
//     fsync(d) with "." never synced), up to the directory's last
//     change, and not at all with nothing in it changed (fsync-clean,
//     below).
//   - Unsynced data comes back as a shorter file, never zeros: xfs moves
//     the on-disk size only when written data completes. python-noflush
//     after its final directory fsync: config.txt empty (ext4: latest,
//     through auto_da_alloc), the same in makedirs-fsync's files.
//     Rewrites in place persist in any subset, as on ext4.
//
// btrfs models btrfs with default options, from the same runs:
//
//   - Transactions commit in order (copy on write, one super block per
//     commit), so pending entry operations persist as a prefix.
//   - An fsync writes the file to the log tree with its names and the new
//     directories above it, not the other pending entry operations
//     (btrfs_log_inode_parent): f0.bin and new survive as on xfs. An
//     fdatasync does the same: redis-aof (Redis makes
//     temp-appendonly.aof.manifest and fdatasyncs it; it was there,
//     latest, while appendonly.aof.1.incr.aof, created before it, was
//     missing) and fdatasync-rename (b.dat, renamed from a file synced
//     before and fdatasynced, was there while early.txt, created before
//     the rename, was missing). The prefix order of pending names gives
//     neither.
//   - The log tree also holds the name changes of files logged earlier in
//     the same transaction, and any fsync or fdatasync that writes the log
//     makes them durable (git-commit-fsync, below).
//   - A directory fsync logs the directory's entries and its own new name
//     (makedirs-fsync: d kept after fsync(d)), not the entries of a new
//     directory in it, whether made there or renamed into it.
//   - Unsynced data comes back as a shorter file, never zeros: the
//     on-disk size follows completed ordered extents (python-noflush:
//     config.txt empty, as on xfs). Rewrites in place persist in any
//     subset: the runs showed an fsync write them all or none, but
//     writeback outside an fsync goes in offset order as on the others,
//     and a transaction commit can take some of them.
//
// On all three, a change of a file's size is metadata committed in order
// with the names (sizeorder.go): ext4 sets the size on disk when writeback
// allocates the blocks, in the running transaction; xfs logs it when the
// write's I/O completes; btrfs with the transaction, its log tree keeping
// the logged size of a file it logs again for a name (relog-size: a file
// synced, renamed, appended to and written back, then another file's
// fsync; btrfs kept its old size while a file made before the append was
// missing). Each commit comes
// at or after the call that changed the size and holds every entry
// operation made before that call. So a joint state in which an entry
// operation did not persist holds no size change made after it: a
// revlog's append is not on disk while the journal created before it is
// missing. The bytes of a rewrite in place change no size and land
// whenever writeback runs. The joint states (states, explore, the
// oracle's whole-state judgement) apply the rule, and so does each path's
// own set (Crash, check's findings): a name shows an inode only in
// configurations that left the name's next entry operation out, so it
// shows none of the inode's size changes made at or after that operation
// (a file's append at the name a rename made before the append took
// away). A path's own states are exactly its part of the joint states:
// the random-trace tests of check hold every model to that, the
// directories above a name included (one removed for good leaves nothing
// below it, in any model).
//
// All three are at least as strong as posix in every state (the
// refinement property tests check it). What the runs did not show is
// left to posix: no rule claims btrfs's rename-over writeback or xfs's
// flush on close after a truncate, since the oracle saw neither bring
// data back, and no rule claims a commit the model cannot be sure of
// (an ext4 fdatasync that allocates blocks without growing the file, the
// first fsync of a file read in since the mount). Two limits remain: the
// time stamps a write changes move in clock ticks, so a write in the same
// tick as the file's previous change does not change the inode again;
// and writeback that starts on its own (after 30 s), which the trace does
// not show as it shows a sync_file_range, can log a growing write's size
// before the sync does. Either makes "the file's last change" earlier than
// the model takes it.
//
// # What oracle --blocks settled
//
// Each question below has a workload in scripts/oracle-workloads.sh (the
// programs are fixtures/programs/probe.py and git), run with crashsim
// oracle --blocks on ext4, xfs and btrfs under every model
// (scripts/oracle-blocks.sh NAME; Linux 6.18.44, e2fsprogs 1.47.0 with
// 4096-byte blocks, xfsprogs 6.1.0, btrfs-progs 6.2). docs/oracle.md has
// the runs' numbers.
//
//   - overwrite-scatter: do pending rewrites in place persist only as a
//     prefix in program order? No. The program rewrites pages 6, 1, 4 and
//     0 of a file and fsyncs it. On ext4 and xfs the states in the middle
//     of the fsync kept pages 0 and 1 without page 6 (writeback goes in
//     offset order), a torn file the old ext4 and xfs models did not
//     predict (6 mismatches each). On btrfs the fsync left the file
//     initial or latest, nothing between. Rule: rewrites in place persist
//     in any subset under every model; appends stay ordered.
//   - lsm-manifest: does an fdatasync of a file whose size changed make an
//     earlier rename durable on xfs? Yes. CURRENT, renamed before an
//     append to the log, was latest in every state at the fdatasync that
//     followed, on xfs as on ext4 and btrfs (the old xfs model kept it
//     initial or latest). And an fdatasync of a rewrite in place commits
//     nothing, on any of the three: OPTIONS-000002, renamed before it,
//     was missing at that point, which the old ext4 model (every
//     fdatasync commits) did not predict. Rule: under ext4 and xfs an
//     fdatasync makes entry operations durable only up to the file's
//     last change of size or blocks.
//   - fsync-clean: does a sync with nothing to write commit? Not on any
//     of the three for a file: b.txt, renamed after a.txt's first fsync,
//     was missing after a second fsync of a.txt with nothing pending
//     (both old ext4 and xfs models said latest: 8 and 10 mismatches).
//     For a directory with nothing changed in it, ext4 commits (c.txt
//     latest after fsync(sub)) and xfs does not (c.txt missing).
//   - fsync-old-change: does an fsync commit what came after the file's
//     last change, when that change was committed already? Not on ext4.
//     db.bin is rewritten in place, then an fsync of other.txt, a file
//     just read in, commits the journal (ext4 takes a newly read inode as
//     changed in the running transaction: a commit crashsim cannot see,
//     as it cannot see the one a default mount makes every 5 s); x.txt is
//     made by a rename, and the fsync of db.bin leaves it missing. The
//     model that counted db.bin's rewrite as a reason to commit said
//     latest (2 mismatches). xfs made x.txt durable (its log force took
//     the whole checkpoint), btrfs did not. Rule, with fsync-clean: a
//     file sync makes durable the entry operations up to the file's last
//     change (up to itself for a write that grows the file), an xfs
//     directory fsync those up to the directory's last change.
//   - dsync-range: does a write made durable by O_DSYNC make the file's
//     other unsynced writes durable too? Not on ext4 or xfs: page 0 of
//     db.bin, rewritten through one fd, was still old on disk after a
//     write to page 2 through a second fd opened O_DSYNC returned (torn:
//     2 mismatches, one a filesystem, for the model that took the O_DSYNC
//     write for an fsync of the whole file). Linux syncs the range written
//     (vfs_fsync_range) and the metadata. Rule, in every model: such a
//     write makes the file's pending ops durable only when every earlier
//     one lies within the pages it wrote, or is a truncation to at most
//     where the write starts (dd oflag=sync, O_TRUNC then writes from 0:
//     sound on ext4, xfs and btrfs under --blocks; a growth past the
//     write left pending let the write's page reach disk before the new
//     size, mid-call, on ext4 and xfs); otherwise they all stay pending
//     (the ops persist in program order, so the model cannot keep the
//     later one durable alone: it overstates the risk to that write,
//     never to the others).
//   - writeback-started: does the fsync of a file that grew commit what
//     came after the write, when a sync_file_range started its writeback
//     before? Not on ext4. dpkg unpacks each file, starts its writeback
//     with sync_file_range, and later fsyncs each and renames it into
//     place: crashsim oracle --blocks on dpkg -i found a.txt still missing
//     after the fsync of b.txt.dpkg-new that followed a.txt's rename (5
//     mismatches: the fsync of a.txt.dpkg-new had committed b's new size,
//     so b's fsync had nothing to commit). probe.py writeback-started is
//     that sequence on its own: 2 mismatches on ext4 for the model that
//     took the growing write as logged by the sync; xfs made the rename
//     durable, btrfs did not (its log tree never carries other names).
//     Rule, under ext4 and xfs: a write that grew the file and was
//     followed by a sync_file_range counts as a change at that
//     sync_file_range, not at the sync.
//   - overwrite-extend: can a write that rewrites bytes below the file's
//     end and goes past it, within one page, leave its bytes below the
//     old end without the new size? Yes, on ext4 and xfs. PostgreSQL
//     rewrites postmaster.pid from offset 0 with a longer text, and
//     crashsim oracle --blocks --user postgres found it, during the fsync
//     that followed, with its old size and new bytes (torn), which no
//     model predicted: a write within one page was whole or nothing.
//     probe.py overwrite-extend is that rewrite alone: 1 mismatch on ext4
//     and on xfs, none on btrfs. Rule, in every model: such a write can
//     be cut at the old end (btrfs admits it too, one state too many).
//   - git-commit-fsync (and git-commit-fsync-rename, objects renamed
//     rather than linked): git -c core.fsync=all fsyncs each object, the
//     index and the ref before linking or renaming it into place, and
//     never a directory. Can btrfs persist the ref rename without the
//     object renames? No: each object's new name was durable at the next
//     fsync of any file (the index's, the ref's), long before the ref
//     rename, which no later sync made durable: it stayed initial at
//     every point until git exited (the unmount's commit wrote it). btrfs adds to its log the new name of a file it
//     logged before (btrfs_log_new_name), and a log sync writes them all.
//     The old btrfs model kept the objects missing after those fsyncs
//     (sound, 58% precise); the rule above drops those findings as ext4
//     and xfs do (70%). It holds within one transaction: btrfs commits
//     every 30 s by default, and a file renamed after a commit that
//     followed its fsync is no longer in the log, which a trace cannot
//     show.
//
// The tests pin each difference between the models. crashsim oracle
// checks them against real filesystems: over the fixture workloads each
// is sound on its own filesystem and posix on all three (docs/oracle.md).
//
// # Names live in a tree
//
// A name is durable only while every directory above it is. A crash state
// is one state of the whole tree: which inode every path names (decided
// by the entry operations that persisted, each atomic) and which content
// each of those inodes holds. A directory made, renamed or removed in the
// trace and not yet durable can be missing, and every name below it with
// it (PathState.Gone names that directory). A renamed directory's names
// move as part of the rename itself: until it is durable they are at
// their old paths, never at both. Point.States counts joint states: every
// subset of the pending entry operations (posix, up to 10 of them) or
// every prefix (ordered models), each with the product of the contents of
// the inodes it names; past those bounds the count is a lower bound and
// says so, as does a count that reached the ceiling of 2^62. The Timeline
// keeps these counts step by step (jointinc.go), so that a crash point
// costs what its event changed; jointCount, from scratch, is the
// reference a test holds it to.
//
// Names are tracked by path, so a directory rename moves the names below
// it: those durable in the directory become changes of the rename. An
// entry made in the directory and not synced there is the directory's,
// not the rename's: its entry operation also changes the new path, stays
// pending when the rename is durable, and a sync of the directory at its
// new path makes it durable (renameTree). So d.tmp made, f created in it,
// d.tmp renamed to d and only the parent fsynced leaves d/f missing or
// there under posix, as when d is made with its own name; btrfs, which
// logs the parent's entries and not those of the new directory, alike;
// ext4 and xfs commit the create with the rename, as it came first.
//
// Known simplifications: a name durable in a renamed directory and
// changed since (a file renamed over it) goes with the rename whole, its
// change durable with the rename, and so does a name whose new path had
// a history of its own after the change; an inode's durable data is a
// prefix of its history except for what a failed sync lost.
//
// # Retirement
//
// With Options.Retire (check sets it), a file whose data, size and names
// are durable, that no pending entry operation names and whose existence
// is settled is retired: the model keeps a small record of it and drops
// its Inode and Names, and brings it back exactly as it was on any later
// use (retire.go). Memory then follows the files that can still change.
// A settled file is the same under every persistence model, so the models
// of one check (Options.Shared) share its record and the index of its
// name. Once every one of them holds it and a few thousand newer ones
// wait, the record goes to an unlinked temp file in TMPDIR, and only the
// index slot of its name and its place in the file stay in memory
// (restspill.go); Shared.Err reports that file's I/O errors, Shared.Close
// lets it go.
// A Timeline never retires, since it asks about every path at every
// point.
//
// The files that can still change are kept small too, since a trace can
// leave a great many with something pending: an Inode keeps the fields
// few files set (a failed sync and what it lost, sync_file_range, an
// unmodeled change, a name history beyond its one name) behind one
// pointer, its first block of pending DataOps itself, and a pending
// DataOp or EntryOp keeps its event with the trace file and syscall name
// interned with its process (opref.go). The models of a check share a
// new file's one-name Names array, and an EntryOp keeps no list of its
// directories: they follow from its changes' paths (EntryOp.Dirs).
//
// # Calls
//
// The model and the process model know calls through the syscall table
// (internal/syscalls), never by name: each event's row (parser.Event.Call)
// gives its effect class, which Model.apply and Procs.Apply switch on,
// and the positions of its arguments (the fd, the dirfd and path, the
// data, the offset, the flags). Flags are decoded with the event's
// architecture into crashsim's bits, the table's constants (O_DIRECT,
// RENAME_EXCHANGE, ...). Which arguments the model reads, so that check
// and states can leave the rest undecoded, is worked out from the same
// rows (args.go). A listing's "arch" line says which machine it and its
// trace come from.
//
// The model prints nothing; check, states and the CLI read it.
package model

// Package oracle checks the persistence models against a real filesystem.
//
// It makes a filesystem image (ext4, xfs or btrfs) in a temporary file,
// mounts it through a loop device, prepares a work directory in it (an
// optional setup command), and keeps that image as the initial state. Then:
//
//  1. The program runs once under strace, to completion, in a fresh copy of
//     the initial image. Its trace, replayed through a model.Timeline scoped
//     to the work directory, gives the crash points: the events that change
//     a path in scope. Each is named by its syscall S, the tracee (thread)
//     that made it, and N, how many calls of S that tracee had made up to
//     and including it.
//  2. For each crash point the program runs again in a fresh copy of the
//     initial image, under strace with -e inject=S:signal=SIGSTOP:when=N:
//     the N-th call of S completes and the tracee is then stopped (strace
//     prints "--- SIGSTOP {...} ---" as the signal is delivered, then
//     "--- stopped by SIGSTOP ---" for that thread and for every other
//     thread of its process, which stop with it: parser.NthStop counts
//     only the first kind of thread, so that one stop of a threaded
//     program is one stop, continued once). While it is frozen, the loop
//     device's backing file is copied (cp --sparse=always): that copy is
//     what a power cut at this moment leaves on the device, every write the
//     filesystem submitted and nothing still in the page cache. The live
//     tree of the work directory (what the program sees) is recorded, the
//     program is killed, the live filesystem unmounted; the copy is attached
//     and mounted read-write (a journal that needs replay refuses a
//     read-only loop mount), its tree recorded, and unmounted.
//  3. The trace of that second run, as it was when the image was copied, is
//     replayed through a Timeline of each persistence model asked for; its
//     last crash point is the prediction for the state observed. Using the
//     rerun's own trace (not the first run's) keeps the comparison exact
//     even when a rerun stops somewhere else than intended (another tracee
//     reached its N-th call of S first): the point is then reported with a
//     note.
//
// With Options.Blocks the observations come from block replay instead
// (RunBlocks, blocks.go): the program runs once on a device whose writes
// are logged (package blocklog), stopped at every crash point to mark the
// log, and every state the log allows at each mark, and before each flush
// during the point's call, is mounted and read. Both sources give the
// same observations (pointObs: per crash point the trace, the live tree
// and the crash states' trees); one comparison (compare.go) classifies
// them under each model into one result type, report.OracleResult, which
// report.OracleText and report.OracleJSON render. A snapshot is a point
// with one state.
//
// Every observed path is classified: missing; initial (the content before
// the program ran); latest (the live content at the crash point); earlier
// (a content seen live at an earlier crash point, at any path); empty;
// zeros (size > 0, every byte zero); else torn. A file can match several
// (an empty file that was empty before is initial and empty): the path is
// sound when any of them is in the model's predicted set. Paths the model
// does not track must be as they were (initial, or missing when they did
// not exist).
//
// A state whose paths each fit is then judged whole (joint.go): some one
// joint crash state of the model at the point must give every path an
// outcome its content matches (a rename on disk with the file it
// publishes; under the ordered models an append only with the names made
// before it). Else it is a mismatch of the paths together. A point whose
// joint states are more than 4096, or counted only as a bound, is judged
// path by path only; the summary counts the points judged whole.
//
// # Filesystems
//
// ext4 and btrfs are mounted with commit=600 and xfs as is, all with
// noatime, so that only the program's own barriers (and the kernel's
// writeback of pages older than vm.dirty_expire_centisecs, 30 s) reach the
// device while it runs; keep the program short. Copies are mounted with
// nouuid on xfs. Default image sizes are the smallest each mkfs accepts
// comfortably: 64 MiB ext4, 128 MiB btrfs, 320 MiB xfs (sparse files; a
// copy takes only the blocks in use). ext4 is made with 4096-byte blocks,
// as mkfs.ext4 makes any filesystem of a usual size: for so small an
// image it would pick 1024, and a page rewritten in place could then
// reach the device in pieces (a block here, three there), which no
// 4096-byte ext4 writes and which no model tears.
//
// # Cleanup
//
// Every loop device and mount the oracle creates is recorded, and on every
// way out of Run (an error, a panic in this package, a cancelled context)
// the mounts are unmounted (umount, retried, then umount -l as a last
// resort) and exactly those loop devices detached. Nothing else is touched.
//
// # Limits
//
// Only the tracee that strace stops is frozen; other processes of a
// multi-process program keep running while the image is copied. Such a
// point is reported with a note when the trace grew during the copy. The
// copy shows one crash state per point (the device kept every write it was
// given), not every state a device cache could leave.
package oracle

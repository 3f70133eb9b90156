// Package gentrace writes large, realistic strace logs for benchmarks and
// scale tests. Every shape is deterministic (the same seed and options give
// the same bytes) and streams: it goes out through a bufio.Writer as it is
// made, so a trace of many gigabytes costs a few megabytes of memory.
//
// The shapes, by their gentrace -shape names:
//
//   - real (LoadTemplates, WriteReal): copies of the fixture recordings
//     (fixtures/traces/*/f-ttt-y-xx.strace), each with fresh pids, its own
//     working directory and rising timestamps, strings cut as strace -s 32
//     cuts them. About 125 bytes a line, mostly calls the crash model
//     ignores (mmap, newfstatat, rt_sigaction, read, close): the shape of
//     an everyday trace, and the one speed per byte is measured on.
//   - files (WriteFiles): one process saving N distinct files, PerDir to a
//     directory: a temp file created, written, fsynced or not (one in
//     two), closed and renamed, with a stat and a read between; each
//     directory fsynced after its last rename but one in four. strace -f
//     -ttt -T -y.
//   - files-unsynced (WriteFileSet without Settled): a Go program's
//     threads creating N files, PerDir to a directory they create, each
//     opened, written once and closed; nothing is synced. A check finds
//     every file's data and name (data-not-synced, name-not-synced) and
//     every directory's name (name-not-synced): 2N findings and one a
//     directory.
//   - files-settled (WriteFileSet with Settled): the same files, each
//     fsynced after its write and its directory fsynced after that, and
//     the parent fsynced after each mkdir: every file ends settled (data,
//     size and name durable) and a check finds nothing.
//   - long (Write): a synthetic save loop with long writes printed -xx
//     (about 1.35 KB a line at -max-data 4096, where parsing is cheap per
//     byte), strace -f -ttt -y -xx. With Options.Unsynced, one file
//     appended to and never synced, with Others other calls after each
//     write.
//
// The file-set shapes come in two Forms: FormTrace, what crashsim trace
// records (strace -f -s 0, the data calls raw, no timestamps, no fd
// paths; 58 bytes a line settled, 66 unsynced), and FormTTTY, strace -f
// -ttt -y as people record by hand (91 and 110 bytes a line). Their threads each fill
// directories of their own, and their lines interleave at random as
// strace -f prints them: a slow call (fsync) that another thread's line
// interrupts is split into "<unfinished ...>" and "<... fsync resumed>".
//
// The bytes of real, files and long are pinned by TestShapesPinned:
// published figures were measured on them.
package gentrace

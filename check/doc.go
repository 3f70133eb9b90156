// Package check holds crashsim's rules: the kinds of finding it reports
// about what a power cut could leave on disk.
//
// A rule is one kind of durability mistake, such as data that no fsync
// covers or a rename that publishes a file before its data is durable. Each
// has a stable kebab-case ID (data-not-synced), a one-line title, a
// severity (info, warning or error), a paragraph saying what a crash can
// leave and why, the fix, a short syscall sequence showing the mistake and
// one showing the fix, and the program or mistake it comes from.
//
// The registry in this package, read through [Rules] and [Lookup], is the
// single place those descriptions live. `crashsim rules`, `crashsim explain
// ID` and the rule metadata of SARIF output all render from it, so a rule's
// words are written once. Like an Analyzer of go/analysis, a rule is a
// value that also names its detector: the code that observes the model
// as a trace is replayed and reports the rule's findings. [Run] runs the
// registry's detectors, each once per model; rules that are one question
// with different reasons share one.
//
// A [Result] holds a check's findings, in memory or, past
// Options.SpillAt, in a temp file: read them with [Result.Findings], an
// iterator that works either way. Its [Summary] counts them by severity,
// and stays true through [Result.Filter] and [Result.Join].
//
// # Problems
//
// A finding is a symptom: one way a crash can lose data. A [Problem] is
// a mistake: one change the user must make. [Group] groups a result's
// findings into problems, asking only what the findings say (their rule,
// path, trace and call site), never which syscalls a program made or
// which program it was:
//
//   - A cause is a rule whose finding on a file explains other findings
//     on the same file, because the cause's fix makes them go away. In
//     the order tried: fsync-error-ignored (handle the failed sync)
//     explains fsync-before-write and the data findings; fsync-before-
//     write (the sync came too early: Python's missing flush),
//     sync-file-range-not-durable and direct-io-not-flushed explain the
//     data findings, data-not-synced, rename-before-sync and
//     dir-sync-before-data; data-not-synced (the file was never synced)
//     explains rename-before-sync, dir-sync-before-data and
//     name-not-synced, since syncing a file and then its directory is one
//     change, and its fix says so; rename-before-sync (synced, but after
//     the rename) explains dir-sync-before-data.
//   - On each file, the causes in that order take the rules they explain
//     that no earlier cause took; the rule of the cause is the problem's
//     rule, and its finding is the primary. Any other finding on the file
//     is a problem of its own rule: two different mistakes in one save
//     (a missing flush and a missing directory fsync) are two problems.
//   - A problem is at one place: the call site of its primary when the
//     trace named one (a -k stack, a Python mark), else the file. The
//     same rule at one call site on several files (a loop saving each)
//     is one problem with several paths; without call sites, each file's
//     problem is its own, but for name-not-synced, whose place is then
//     the directory whose fsync is missing, in its trace: the names a
//     program left unsynced in one directory (the two names of a rename
//     in it, the directories made in it) are one problem, one fsync of
//     it to add; a rename between two directories is two. Findings of
//     the same rule on one file are one problem. Explore's rejected
//     states are a problem each.
//   - A program that never asked for durability (no sync call of any
//     kind, no O_SYNC write: Result.Unsynced, only for a trace without
//     blind spots) has one program-level problem, first, that says so and
//     lists the files: it holds every finding whose problem's rule would
//     be data-not-synced, rename-before-sync, name-not-synced or
//     dir-sync-before-data. Its other mistakes (a truncation in place)
//     stay problems of their own.
//
// A problem's severity is that of its worst finding; exit statuses and
// --fail-on count problems. Group reads the findings twice and keeps an
// index of the files with findings (the rules found on each) and four
// bytes per finding: a spilled result's findings stay on disk.
//
// Severity orders findings for --fail-on: [Info] < [Warning] < [Error], and
// the threshold [Never] is above them all.
package check

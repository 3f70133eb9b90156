// Package wire is crashsim's report schema: the documents crashsim
// writes for scripts and code scanning, their one encoder and their one
// reader. What it defines is a stable interface. A field keeps its name
// and meaning within a version; a new field may be added (omitted when
// empty, so that old readers are not misled); anything else raises
// Version.
//
// The package depends on the standard library alone: the schema is not
// the check package's types, and does not change when they do. Package
// report turns a check's result into these values; --baseline and
// `crashsim merge` read them back. Its JSON Schema is
// crashsim-report.schema.json, beside this file.
//
// # The JSON report, version 2
//
// `crashsim check`, `trace` and `explore` with --format json write one
// Report: an object with these members, in this order.
//
//   - version: 2, the shape of the document (Version). Version 1 had no
//     problems, no finding's problem and no summary.problems; it is still
//     read (a baseline written by an older crashsim).
//   - tool: which crashsim wrote it. name is "crashsim"; version the Go
//     module version, "(devel)" for a build from a checkout;
//     semanticVersion the same as semver ("0.0.0-devel"); revision, when
//     known, the VCS revision, "+dirty" when the checkout had changes.
//   - problems: an array of problems, empty when there is none: one per
//     change the user must make (see package check), the program-level
//     one first, then in the order of their first finding.
//   - findings: an array of findings, empty when there is none, in the
//     order of their problems, each problem's by trace, line, rule and
//     path; explore's by state.
//   - summary: what was checked and found, last.
//
// # A problem
//
//   - id: the problem's identity across runs, 16 lower-case hex digits:
//     its rule and its place, the call site (file relative to the source
//     root, and function) when known, else its primary finding's path
//     relative to its root, or the program for the program-level
//     problem; never a line. --baseline compares these.
//   - rule: the mistake's rule; severity: that of its worst finding.
//   - path: its primary finding's path; paths: every file it is about,
//     each once.
//   - trace, line: its primary finding's trace and line (the first
//     finding's, for the program-level problem).
//   - source, when known: the call site where the fix goes, as a
//     finding's.
//   - message: what a crash can leave and what to change; fix: the
//     change in full (the rule's fix, and what its consequences add).
//   - program: true for the program-level problem: the program never
//     asked for durability, and the problem holds every finding that
//     follows from it; absent otherwise.
//   - findings: the fingerprints of its findings, its primary first.
//   - state_index, explore's only: its finding's.
//
// # A finding
//
//   - rule: the rule's ID, kebab-case, as `crashsim rules` lists them.
//   - severity: "error", "warning" or "info". A rule's findings have its
//     severity, or a lower one where the trace cannot settle the case.
//   - path: the file's name at the end of the trace (the name a user
//     knows), or its last name if it was deleted.
//   - trace: the trace file, as crashsim was given it.
//   - line: the line of the trace to look at, from 1.
//   - pid: the process that made the call on that line.
//   - message: what a crash can leave, and what to change, in words.
//   - models: the persistence models under which it happens ("posix",
//     "ext4", "xfs", "btrfs"), or null.
//   - related: an array of the events that explain it, each with line,
//     pid, syscall and what (its part: "first unsynced write").
//   - state, when one crash state shows the loss: line (the crash comes
//     right after it), path, outcome (missing, initial, latest, earlier,
//     empty, torn or zeros), persisted (which pending operations reached
//     the disk), and words (the state in words, what follows "a crash can
//     leave PATH"), absent when there are none.
//   - fingerprint: the finding's identity across runs, 16 lower-case hex
//     digits: its rule, its path relative to its root, and the shape of
//     the syscalls that explain it; never a pid, a trace line, an
//     absolute checkout path or a temp name, and not the call site, so
//     that a run with stacks and one without name a finding the same.
//     FingerprintVersion names the recipe. --baseline compares these.
//   - relpath: path relative to the root it lies in (path when none).
//   - source, when the trace had stacks: the call site in the program:
//     file (relative to the source root when below it), line, function.
//   - state_index, explore's findings only: the rejected state's place in
//     explore's order of distinct states, from 1, counting those
//     --max-states left unchecked, which orders the findings of shards
//     merged into one report.
//   - problem: the id of the problem it belongs to.
//
// # The summary
//
//   - events: the events read; files: the files in scope.
//   - errors, warningFindings, infos: the findings reported, by severity;
//     problems: the problems reported.
//   - models: the models reported, an array.
//   - left: findings found and not reported: ignored (by an ignore glob),
//     suppressed (by a [[suppress]] of the config), baseline (in the
//     baseline).
//   - warnings: an array of the blind spots, what the trace could not
//     show (or, blind-states-unchecked, the states explore's --max-states
//     left unchecked): id (blind-...), message, trace, line (0: none),
//     fix (the flag that fixes it), and accepted: true when
//     --accept-blind accepted it.
//   - notes: an array of what was left out of scope on purpose: id,
//     message, and trace and line when it is about one line.
//   - shard: "I/N" in the report of shard I of explore --shard I/N,
//     absent otherwise; N is at most MaxShards.
//   - run, crashsim explore only (RunID): the run's identity, which every
//     shard of it shares: trace, the SHA-256 of the trace's bytes;
//     checker, the SHA-256 of the checker command; options, the options
//     that decide which states are built and checked, as flags. Merge
//     refuses shards whose runs differ, or that have none.
//   - explore, crashsim explore only (Explore): what it built and checked.
//     points, of which exhaustive (every state built) and sampled (past
//     maxJoint: states built from families); admitted, the joint crash
//     states the model admits over all points (admittedExact false: at
//     least that many); built, distinct, checked (checker runs),
//     rejected, notChecked (distinct states --max-states left out);
//     families, the states built at sampled points by family (predicted,
//     prefix, drop, torn, random); maxJoint, samples, seed and everyLine,
//     as explore was run; and crashPoints, one per crash point: line (0:
//     before the first event), admitted, exact, exhaustive, families (of
//     a sampled point, in the order built), built, new (distinct trees
//     first built there) and checked (checker runs on states checked
//     there). A merge of shards sums checked and rejected, at each point
//     too: every shard builds every state and checks its share.
//   - config: the config file the run read (.crashsim.toml or --config),
//     absent when it read none.
//
// Strings are UTF-8. A name (a path, a trace's name, a function) and a
// message that quotes one can hold any byte, so crashsim writes them
// escaped as its text report and strace do: a backslash as \\, \t \n \r
// and the like by their letter, other control bytes and bytes that are
// not UTF-8 as \xNN, and runes that do not print (the bidi controls
// among them) as \uNNNN. Two names never read the same, and a SARIF
// viewer is never handed a raw bidi control. In SARIF a URI holds its
// path percent-encoded instead.
//
// # SARIF
//
// --format sarif writes a SARIF 2.1.0 log (SARIFLog) of one run, the part
// GitHub code scanning reads. tool.driver lists every rule of the
// registry (id; name, the ID in PascalCase; shortDescription, the title;
// fullDescription, the docs; help, the fix; defaultConfiguration.level;
// properties.tags). One invocation carries the exit code, and the blind
// spots (level warning, or note once accepted) and notes as
// toolExecutionNotifications (and crashsim-results-cut when the run
// holds only the first MaxResults problems). Each problem is one
// result: ruleId and
// ruleIndex (the problem's rule), level (its severity), message (its
// primary's path relative to its root, its message, and how many more
// files it is about), its location (the call site under %SRCROOT% when
// known, else its primary's trace line; a trace outside the source root
// is under TRACEDIR, which originalUriBaseIds defines), relatedLocations
// (ids from 1, at most MaxRelatedLocations, the last then saying how
// many more: the call in the trace when located at the source, the
// events that explain its primary, then one per consequence, at its
// trace line, "RULE: PATH: what a crash leaves", an explore finding's
// with properties.stateIndex), partialFingerprints
// (the problem's id under ProblemVersion) and properties: function (when
// a stack named it), models, path and paths (relpaths), stateIndex
// (explore), findings (the fingerprints of its findings, its primary
// first: what a baseline compares besides the id), rules (the rules of
// its findings, its own first) and, for explore, consequence (its
// primary as a related location of a consequence: what crashsim merge
// adds when it joins two shards' results of one problem). A log written before problems had one
// result per call site and the FingerprintVersion fingerprint; a
// baseline still reads it. A shard's run has properties.crashsimShard,
// "I/N", and an explore run properties.crashsimRun, as the JSON's
// summary.run; a run that read a config names it in
// properties.crashsimConfig.
//
// # A new version
//
// A field added to a type here, omitted when empty, needs no new version.
// A change an old reader would misread (a field removed or meaning
// something else, a new part of the document that changes what the
// findings mean) raises Version: the writers write the version they are
// given, the Reader reads every version from 1 to Version and refuses a
// newer one as soon as it reads its "version" member, before its
// findings; a new array of the document is one more list the
// ReportWriter opens in its place in the order (see ReportWriter.Finding)
// and the Reader streams as it streams findings.
//
// # Writing and reading
//
// An Encoder writes JSON a token at a time, byte for byte what
// encoding/json writes, indented (reports, SARIF), compact with HTML
// escaped (the data of an HTML page) or both indented and escaped (the
// oracle's), handing its bytes to its writer as it goes; a ReportWriter and a SARIFWriter write whole documents a
// finding at a time. A Reader reads either kind of document as it
// streams, a finding at a time, holding no value longer than MaxValue;
// ReadFingerprints reads a baseline's fingerprints with it, and Merge
// joins the reports of explore's shards with it, reading each twice.
package wire

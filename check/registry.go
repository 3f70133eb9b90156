package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/crashsim/crashsim/model"
)

// Severity says how bad a finding is. Larger is worse, so a --fail-on
// threshold t fails a run on any finding with severity >= t.
type Severity int

const (
	Info Severity = iota + 1
	Warning
	Error
	// Never is a --fail-on threshold above every severity: nothing fails
	// the run. No rule has it.
	Never
)

var severityNames = map[Severity]string{
	Info:    "info",
	Warning: "warning",
	Error:   "error",
	Never:   "never",
}

func (s Severity) String() string {
	if name, ok := severityNames[s]; ok {
		return name
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// ParseSeverity reads a severity as --fail-on spells it: error, warning,
// info or never.
func ParseSeverity(s string) (Severity, error) {
	for sev, name := range severityNames {
		if s == name {
			return sev, nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning, info or never)", s)
}

// MarshalText writes the severity's name, so JSON output says "error".
func (s Severity) MarshalText() ([]byte, error) {
	if _, ok := severityNames[s]; !ok {
		return nil, fmt.Errorf("invalid severity %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText is ParseSeverity, so a kong flag or a JSON field can be a
// Severity.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Rule is one kind of finding: its docs, for a user reading `crashsim
// explain`, and the code that finds it, as an Analyzer of go/analysis
// bundles both.
type Rule struct {
	ID       string   // stable kebab-case ID, e.g. "data-not-synced"
	Title    string   // one line, no final period
	Severity Severity // of every finding of this rule
	Doc      string   // one paragraph: what a crash can leave, and why
	Fix      string   // what to change in the program
	Bad      string   // strace-like lines, one per line, showing the mistake
	Good     string   // the same sequence with the fix
	Seed     string   // the program or mistake the rule comes from ("Seen in")
	HelpURI  string   // a page with more, or empty

	// detector finds the rule's mistakes in a check; nil for a rule no
	// check of a trace finds (checker-failed is explore's).
	detector *detector
}

// A detector is the code that asks the model one question: it makes a
// fresh observer for each model run of a check. Rules that are one
// question with different reasons share one: data-not-synced and the
// three rules that say why the data was not made durable.
//
// kinds are the effect kinds its observer reads: Run hands it no other
// (an observer does nothing with one outside them). A check walks
// millions of effects, most of them of a kind most observers pass over:
// calling every observer for every effect cost some 5% of a check of
// files each written and synced, mostly in touching each rule's state.
type detector struct {
	observer func() observer
	kinds    effectKinds
}

// effectKinds is a set of model.EffectKind.
type effectKinds uint32

func kinds(ks ...model.EffectKind) effectKinds {
	var s effectKinds
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

func (s effectKinds) has(k model.EffectKind) bool { return s&(1<<k) != 0 }

// The detectors of the registry's rules.
var (
	dataDetector  = &detector{func() observer { return &dataNotSynced{} }, 0}
	namesDetector = &detector{func() observer { return &nameNotSynced{} },
		kinds(model.EffEntry, model.EffDirSync, model.EffSyncAll)}
	renameDetector = &detector{func() observer { return &renameBeforeSync{} },
		kinds(model.EffEntry)}
	replaceDetector = &detector{func() observer { return &renameBeforeDirSync{} },
		kinds(model.EffEntry, model.EffFileSync, model.EffDirSync, model.EffSyncAll)}
	removeDetector = &detector{func() observer { return &removeBeforeSync{} },
		kinds(model.EffRead, model.EffWrite, model.EffFileSync, model.EffEntry, model.EffTruncate)}
	dirSyncDetector = &detector{func() observer { return &dirSyncBeforeData{} },
		kinds(model.EffEntry, model.EffDirSync, model.EffFileSync, model.EffSyncAll)}
	truncateDetector = &detector{func() observer { return &truncateInPlace{} },
		kinds(model.EffTruncate, model.EffWrite, model.EffFileSync, model.EffSyncAll, model.EffEntry)}
	overwriteDetector = &detector{func() observer { return &overwriteInPlace{} },
		kinds(model.EffWrite, model.EffFileSync, model.EffSyncAll)}
	syncErrDetector = &detector{func() observer { return &syncErrorIgnored{seen: map[*model.Inode]bool{}} },
		kinds(model.EffSyncFailed, model.EffFileSync, model.EffEntry, model.EffExit)}
	crossDirDetector = &detector{func() observer { return &crossDirRename{} },
		kinds(model.EffEntry)}
	// unalignedWrite reads Effect.Data, which writes and truncations
	// carry, and the pages reads returned.
	alignDetector = &detector{func() observer { return &unalignedWrite{seen: map[*model.Inode]bool{}} },
		kinds(model.EffWrite, model.EffTruncate, model.EffRead)}
	unmodeledDetector = &detector{func() observer { return &unmodeledWrite{seen: map[*model.Inode]bool{}} },
		kinds(model.EffUnmodeled)}
)

// detectors are the registry's detectors, each once, in the order of the
// first rule that names it.
var detectors = func() []*detector {
	var out []*detector
	for _, r := range registry {
		if r.detector != nil && !slices.Contains(out, r.detector) {
			out = append(out, r.detector)
		}
	}
	return out
}()

// newObservers returns a fresh observer of each detector, for one model
// run.
func newObservers() []observer {
	out := make([]observer, len(detectors))
	for i, d := range detectors {
		out[i] = d.observer()
	}
	return out
}

// byKind returns, for each effect kind, the observers of obs (made by
// newObservers, one per detector) whose detector reads it, in the order
// of obs: the order they saw every effect in before.
func byKind(obs []observer) (out [32][]observer) {
	for k := range out {
		for i, d := range detectors {
			if dispatchAll || d.kinds.has(model.EffectKind(k)) {
				out[k] = append(out[k], obs[i])
			}
		}
	}
	return out
}

// dispatchAll hands every effect to every observer, as before effect
// kinds were declared: for the test that compares the two.
var dispatchAll = false

// Every effect kind fits effectKinds and byKind's array (EffSettled is
// the last kind).
var _ [32 - model.EffSettled - 1]struct{}

// lowered is the rule at a lower severity, for a finding that rests on
// something the trace cannot settle or that loses no data: the same ID,
// docs and fixtures, so reports and baselines treat it as the rule.
func (r *Rule) lowered(s Severity) *Rule {
	if s >= r.Severity {
		return r
	}
	c := *r
	c.Severity = s
	return &c
}

// Rule IDs, for the checks that report them. Stable: users put them in
// --fail-on decisions, ignore lists and fixture expectations.
const (
	DataNotSynced           = "data-not-synced"
	NameNotSynced           = "name-not-synced"
	FsyncBeforeWrite        = "fsync-before-write"
	RenameBeforeSync        = "rename-before-sync"
	RenameBeforeDirSync     = "rename-before-dir-sync"
	RemoveBeforeSync        = "remove-before-sync"
	RemoveBeforeRename      = "remove-before-rename"
	DirSyncBeforeData       = "dir-sync-before-data"
	TruncateInPlace         = "truncate-in-place"
	OverwriteInPlace        = "overwrite-in-place"
	SyncFileRangeNotDurable = "sync-file-range-not-durable"
	DirectIONotFlushed      = "direct-io-not-flushed"
	FsyncErrorIgnored       = "fsync-error-ignored"
	CrossDirRename          = "cross-dir-rename"
	UnalignedWrite          = "unaligned-write"
	UnmodeledWrite          = "unmodeled-write"
	CheckerFailed           = "checker-failed"
)

// Rules returns every rule in the order crashsim rules lists them: the
// most common mistake (data-not-synced) first, checker-failed last. The
// slice is the caller's; the Rules it points to are shared and must not be
// modified.
func Rules() []*Rule { return slices.Clone(registry) }

// Lookup returns the rule with the given ID. IDs match exactly.
func Lookup(id string) (*Rule, bool) {
	r, ok := byID[id]
	return r, ok
}

var byID = func() map[string]*Rule {
	m := make(map[string]*Rule, len(registry))
	for _, r := range registry {
		m[r.ID] = r
	}
	return m
}()

// trace joins strace-like lines into a Bad or Good example.
func trace(lines ...string) string { return strings.Join(lines, "\n") }

// Lines shared by several examples: a save of config.json through a temp
// file in the same directory.
const (
	openTmp   = `openat(AT_FDCWD, "config.json.tmp", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3`
	writeTmp  = `write(3, "{\"replicas\": 3}\n", 16) = 16`
	fsyncTmp  = `fsync(3) = 0`
	closeTmp  = `close(3) = 0`
	renameTmp = `rename("config.json.tmp", "config.json") = 0`
	openDir   = `openat(AT_FDCWD, ".", O_RDONLY|O_DIRECTORY|O_CLOEXEC) = 4`
	fsyncDir  = `fsync(4) = 0`
)

// atomicSave is the whole recipe: temp file, fsync, rename, directory fsync.
var atomicSave = trace(openTmp, writeTmp, fsyncTmp, closeTmp, renameTmp, openDir, fsyncDir)

var registry = []*Rule{
	{
		ID:       DataNotSynced,
		Title:    "Written data is not durable when the program ends",
		Severity: Error,
		Doc: "The program wrote bytes to this file, but no fsync, fdatasync, sync, syncfs or O_SYNC/O_DSYNC " +
			"write covered them before the trace ended (an O_SYNC/O_DSYNC write covers only the pages it " +
			"wrote: an earlier write elsewhere in the file stays at risk; a syncfs, only its fd's " +
			"filesystem). A write returns once the bytes are " +
			"in the page cache, " +
			"which is memory; the kernel writes them to disk later, often 30 seconds later. A power cut before " +
			"that can leave the file empty, shorter than written, with zeros where the size reached the disk " +
			"but the data did not, or with only some of the writes: config.json can be empty after a crash " +
			"even though the program reported success.",
		Fix: "fsync the file after its last write and before reporting success: f.flush() then " +
			"os.fsync(f.fileno()) in Python, f.Sync() in Go, fsync(fd) in C (fdatasync is enough when only " +
			"the contents matter). If the file is new or renamed, fsync its directory too (see name-not-synced).",
		Bad: trace(
			`openat(AT_FDCWD, "config.json", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3`,
			writeTmp,
			closeTmp,
		),
		Good: trace(
			`openat(AT_FDCWD, "config.json", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3`,
			writeTmp,
			fsyncTmp,
			closeTmp,
			openDir,
			fsyncDir,
		),
		Seed:     "os.WriteFile, or any save without fsync: page cache only, not durable",
		detector: dataDetector,
	},
	{
		ID:       NameNotSynced,
		Title:    "A name change is not durable: its directory was not fsynced",
		Severity: Error,
		Doc: "A file was created, renamed, linked or unlinked (or a directory made or removed), and its parent " +
			"directory was not fsynced afterwards, nor did a sync or a syncfs of its filesystem run. A name lives in its directory, " +
			"which reaches the disk apart from the file: fsync of a file makes its data durable, not its name. " +
			"After a crash a new file can be missing, a renamed one back under its old name, a deleted one " +
			"back. A new directory takes the names in it along until its parent is fsynced. Where the trace " +
			"cannot tell whether open(O_CREAT) created the file, the finding is a warning that says so; a Unix " +
			"socket's name is an info (it holds no data, and a server binds it anew at each start).",
		Fix: "After the create, rename, link or unlink, open the directory that holds the name and fsync it: " +
			"d, _ := os.Open(dir); d.Sync() in Go; fd = os.open(dir, os.O_RDONLY); os.fsync(fd) in Python. " +
			"After a rename between two directories, fsync both.",
		Bad:      trace(openTmp, writeTmp, fsyncTmp, closeTmp, renameTmp),
		Good:     atomicSave,
		Seed:     "a save that fsyncs the file and never its directory",
		detector: namesDetector,
	},
	{
		ID:       FsyncBeforeWrite,
		Title:    "fsync ran before the data was written",
		Severity: Error,
		Doc: "The file was synced and then written again, and nothing synced the new bytes, so the sync came " +
			"too early. The classic case is Python: f.write() fills the file object's own buffer, and the bytes " +
			"reach the kernel as write(2) only when that buffer fills or the file is closed. os.fsync(f.fileno()) " +
			"right after f.write() therefore syncs an empty or stale file, and the trace shows the fsync before " +
			"the write. A crash can leave the file empty or with its old content although the program called fsync. " +
			"A sync that made earlier writes durable counts only when the write it missed comes right after it.",
		Fix: "Flush the program's own buffer before syncing: f.flush() before os.fsync(f.fileno()) in Python, " +
			"fflush(fp) before fsync(fileno(fp)) in C, w.Flush() before f.Sync() with a Go bufio.Writer. The " +
			"trace then shows the write before the fsync.",
		Bad:      trace(openTmp, fsyncTmp, writeTmp, closeTmp, renameTmp, openDir, fsyncDir),
		Good:     atomicSave,
		Seed:     "Python save without f.flush()",
		detector: dataDetector,
	},
	{
		ID:       RenameBeforeSync,
		Title:    "Rename publishes a file whose data is not durable",
		Severity: Error,
		Doc: "A file was renamed or linked to its final name while its data was still only in the page cache. " +
			"rename is atomic for the name, not for the data behind it: the new directory entry can reach the " +
			"disk before the file's bytes do. After a crash the real name can point at an empty or partly " +
			"written file, and the old version it replaced is gone. This is the temp-file-and-rename recipe " +
			"with its fsync missing.",
		Fix: "fsync the temp file after its last write and before the rename (tmp.Sync() in Go; f.flush() and " +
			"os.fsync(f.fileno()) in Python), then rename, then fsync the directory.",
		Bad:      trace(openTmp, writeTmp, closeTmp, renameTmp, openDir, fsyncDir),
		Good:     atomicSave,
		Seed:     "an atomic save (write, fsync, rename, directory fsync) with the fsync left out: sed -i and git's default config skip it",
		detector: renameDetector,
	},
	{
		ID:       RenameBeforeDirSync,
		Title:    "Rename publishes a file before the new files it may name are durable",
		Severity: Warning,
		Doc: "A program wrote a file and fsynced it (or a new directory's entries), gave it its name by a create " +
			"or a rename, then renamed a file over an old one (a pointer: a database's CURRENT naming its new " +
			"manifest), or renamed a synced file to a new name beside one it made under its own (a mail spool's " +
			"header file), and fsynced the directory only after. fsync made the data durable, not the name, and " +
			"POSIX orders no directory changes until the fsync: a crash can keep the pointer and lose the name. " +
			"ext4, xfs and btrfs commit them in order, so only posix finds it, and only where the name became " +
			"durable later (else it is name-not-synced). The trace cannot show that one file needs the other: " +
			"a warning.",
		Fix: "fsync the directory after creating (and fsyncing) the new file and before the rename that " +
			"publishes it; then fsync the directory again after the rename.",
		Bad: trace(
			`openat(AT_FDCWD, "MANIFEST-2", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0644) = 3`,
			`write(3, "..."..., 512) = 512`,
			`fsync(3) = 0`,
			`openat(AT_FDCWD, "CURRENT.tmp", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0644) = 4`,
			`write(4, "MANIFEST-2\n", 11) = 11`,
			`fsync(4) = 0`,
			`rename("CURRENT.tmp", "CURRENT") = 0`,
			`openat(AT_FDCWD, ".", O_RDONLY|O_DIRECTORY|O_CLOEXEC) = 5`,
			`fsync(5) = 0`,
		),
		Good: trace(
			`openat(AT_FDCWD, "MANIFEST-2", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0644) = 3`,
			`write(3, "..."..., 512) = 512`,
			`fsync(3) = 0`,
			`openat(AT_FDCWD, ".", O_RDONLY|O_DIRECTORY|O_CLOEXEC) = 5`,
			`fsync(5) = 0`,
			`openat(AT_FDCWD, "CURRENT.tmp", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0644) = 4`,
			`write(4, "MANIFEST-2\n", 11) = 11`,
			`fsync(4) = 0`,
			`rename("CURRENT.tmp", "CURRENT") = 0`,
			`fsync(5) = 0`,
		),
		Seed:     "RocksDB's CURRENT renamed to name its new MANIFEST before the directory fsync that makes the MANIFEST's name durable",
		detector: replaceDetector,
	},
	{
		ID:       RemoveBeforeSync,
		Title:    "File removed before the copy made from it is durable",
		Severity: Error,
		Doc: "A program read a file and wrote what it made of it to another, and the first file was removed or " +
			"emptied, by that program or another (cp a b && rm a), while the new file's bytes were only in the " +
			"page cache, or its new name not yet durable (its directory not fsynced). The removal can reach the " +
			"disk first: a crash can leave the old file gone and the new one empty or missing, the data in " +
			"neither. gzip, xz and bzip2 without a sync option do this, as do a move between file systems, logrotate's " +
			"copytruncate and a journal deleted before its replay is synced. Only a file whose content was " +
			"durable counts.",
		Fix: "fsync the new file after its last write and before removing the old one (gzip --synchronous does), " +
			"and fsync its directory too when its name is new, before the removal or truncation; then fsync the " +
			"old file's directory so that the removal is durable too.",
		Bad: trace(
			`openat(AT_FDCWD, "events.log", O_RDONLY) = 3`,
			`read(3, "..."..., 65536) = 4096`,
			`openat(AT_FDCWD, "events.log.gz", O_WRONLY|O_CREAT|O_EXCL, 0600) = 4`,
			`write(4, "..."..., 1024) = 1024`,
			`unlink("events.log") = 0`,
		),
		Good: trace(
			`openat(AT_FDCWD, "events.log", O_RDONLY) = 3`,
			`read(3, "..."..., 65536) = 4096`,
			`openat(AT_FDCWD, "events.log.gz", O_WRONLY|O_CREAT|O_EXCL, 0600) = 4`,
			`write(4, "..."..., 1024) = 1024`,
			`fsync(4) = 0`,
			`openat(AT_FDCWD, ".", O_RDONLY|O_DIRECTORY|O_CLOEXEC) = 5`,
			`fsync(5) = 0`,
			`unlink("events.log") = 0`,
			`fsync(5) = 0`,
		),
		Seed:     "gzip replacing a file with its compressed copy: without --synchronous nothing is synced before the unlink",
		detector: removeDetector,
	},
	{
		ID:       RemoveBeforeRename,
		Title:    "File removed before its new version took its name, or renamed away",
		Severity: Warning,
		Doc: "A program read a file, wrote its new version to another, then removed the file or renamed it to " +
			"a backup name, and only then renamed the new version to its name (zip -u and rm then mv remove " +
			"it; gpg, with pubring.kbx~, and sed -i.bak rename it), or wrote the new version in a file created " +
			"under the name (vim). rename replaces the target in one step; freeing the name first opens a " +
			"moment with no file under it, or an empty one. A crash there leaves the name missing or empty, " +
			"every sync in place or not: the data survives only under the temp or backup name, where nothing " +
			"looks for it.",
		Fix: "Rename the new version over the old file without removing or moving it first: rename(2) replaces " +
			"the target atomically (os.Rename in Go, os.replace in Python). To keep a backup, make it with " +
			"link(2) or a copy before that rename. Keep the fsync of the new file before the rename and of the " +
			"directory after it.",
		Bad: trace(
			`openat(AT_FDCWD, "notes.zip", O_RDONLY) = 3`,
			`read(3, "PK\3\4"..., 4096) = 2048`,
			`openat(AT_FDCWD, "zi0Xq1", O_RDWR|O_CREAT|O_EXCL, 0600) = 4`,
			`write(4, "PK\3\4"..., 2300) = 2300`,
			`fsync(4) = 0`,
			`unlink("notes.zip") = 0`,
			`rename("zi0Xq1", "notes.zip") = 0`,
			`openat(AT_FDCWD, ".", O_RDONLY|O_DIRECTORY|O_CLOEXEC) = 5`,
			`fsync(5) = 0`,
		),
		Good: trace(
			`openat(AT_FDCWD, "notes.zip", O_RDONLY) = 3`,
			`read(3, "PK\3\4"..., 4096) = 2048`,
			`openat(AT_FDCWD, "zi0Xq1", O_RDWR|O_CREAT|O_EXCL, 0600) = 4`,
			`write(4, "PK\3\4"..., 2300) = 2300`,
			`fsync(4) = 0`,
			`rename("zi0Xq1", "notes.zip") = 0`,
			`openat(AT_FDCWD, ".", O_RDONLY|O_DIRECTORY|O_CLOEXEC) = 5`,
			`fsync(5) = 0`,
		),
		Seed:     "zip -u and zip -d: the archive unlinked, then the temp file renamed to its name",
		detector: removeDetector,
	},
	{
		ID:       DirSyncBeforeData,
		Title:    "Directory fsync makes a name durable before its data",
		Severity: Error,
		Doc: "A directory was fsynced while a file it names still had data only in the page cache. That makes " +
			"the name durable, not the data: on ext4 with delayed allocation a power cut before the file is " +
			"synced brings it back under its name with zero length. The finding names the sync that ends that " +
			"window, if one came. Not reported: a temp name given up (renamed away, unlinked) only after the " +
			"file's own fsync (one thread's directory fsync landing while another's temp file is synced); a " +
			"file synced in the same process's very next call (gzip --synchronous), where a crash leaves the " +
			"same states in either order.",
		Fix: "fsync each file after its last write and before fsyncing its directory: write, fsync(file), " +
			"then fsync(dir). The directory fsync is for the name only; the order matters.",
		Bad: trace(
			`openat(AT_FDCWD, "f0001", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0644) = 3`,
			`write(3, "..."..., 4096) = 4096`,
			closeTmp,
			openDir,
			fsyncDir,
		),
		Good: trace(
			`openat(AT_FDCWD, "f0001", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0644) = 3`,
			`write(3, "..."..., 4096) = 4096`,
			fsyncTmp,
			closeTmp,
			openDir,
			fsyncDir,
		),
		Seed:     "a save that fsyncs only the directory: the names were on disk, the data of all 200 files still dirty",
		detector: dirSyncDetector,
	},
	{
		ID:       TruncateInPlace,
		Title:    "File truncated and rewritten in place instead of replaced",
		Severity: Warning,
		Doc: "A file that had content was truncated, by O_TRUNC on open or by ftruncate (or unlinked and made " +
			"anew), and rewritten under the same name before that was durable. Until the new bytes are durable, a " +
			"crash can leave the file empty (or missing) or with part of the new content, the old version gone; an fsync at " +
			"the end shortens that window but cannot close it. It is a warning: some files (logs, caches) can be " +
			"rebuilt. Not reported: a preallocated log cut back to its last good record, given its space again " +
			"(fallocate) and appended to after what it kept; a cut synced on its own before the rewrite, a state " +
			"the program committed (SQLite's journal_mode=TRUNCATE).",
		Fix: "Replace the file instead of rewriting it: write the new content to a temp file in the same " +
			"directory, fsync it, rename it over the old name, then fsync the directory. Readers then see the " +
			"whole old version or the whole new one.",
		Bad: trace(
			`openat(AT_FDCWD, "config.json", O_WRONLY|O_TRUNC|O_CLOEXEC) = 3`,
			writeTmp,
			fsyncTmp,
			closeTmp,
		),
		Good:     atomicSave,
		Seed:     "write + fsync over the file itself: durable, not atomic",
		detector: truncateDetector,
	},
	{
		ID:       OverwriteInPlace,
		Title:    "Data on disk overwritten in place in several pieces, no journal first",
		Severity: Warning,
		Doc: "Data of this file on disk (zeros a preallocation left count) was overwritten in place by more " +
			"than one write between two syncs, or by one over more than one page or past the end (O_DSYNC ones " +
			"too), with nothing made durable first that could repair a half-done update. The kernel writes " +
			"those blocks back in any order, so a crash before the sync (or the O_DSYNC write's return) can " +
			"leave the file torn. Not reported: another file synced after this one's last sync (a journal, " +
			"a write-ahead log), a copy of the new bytes that sync made durable elsewhere in this file, apart " +
			"from each overwrite and as large as all of them (InnoDB's doublewrite buffer), or an O_DSYNC " +
			"write first.",
		Fix: "Make the update atomic. Write what is about to change (or the new version) to a journal or log " +
			"first and fsync it before overwriting in place, so that recovery can redo or undo it; or write the " +
			"new version to a temp file, fsync it and rename it over the old one; or write new blocks elsewhere " +
			"and switch to them with one small write after a sync (copy-on-write).",
		Bad: trace(
			`openat(AT_FDCWD, "data.db", O_RDWR|O_CLOEXEC) = 3`,
			`fstat(3, {st_mode=S_IFREG|0644, st_size=16384, ...}) = 0`,
			`pwrite64(3, "..."..., 4096, 0) = 4096`,
			`pwrite64(3, "..."..., 4096, 8192) = 4096`,
			`fdatasync(3) = 0`,
		),
		Good: trace(
			`openat(AT_FDCWD, "data.db-journal", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 4`,
			`write(4, "..."..., 8192) = 8192`,
			`fdatasync(4) = 0`,
			`openat(AT_FDCWD, "data.db", O_RDWR|O_CLOEXEC) = 3`,
			`fstat(3, {st_mode=S_IFREG|0644, st_size=16384, ...}) = 0`,
			`pwrite64(3, "..."..., 4096, 0) = 4096`,
			`pwrite64(3, "..."..., 4096, 8192) = 4096`,
			`fdatasync(3) = 0`,
			`unlink("data.db-journal") = 0`,
		),
		Seed:     "a key-value store that rewrote blocks of its file in place between syncs: explore found 110 corrupt states, check none",
		detector: overwriteDetector,
	},
	{
		ID:       SyncFileRangeNotDurable,
		Title:    "sync_file_range is the only sync of this data",
		Severity: Error,
		Doc: "The only thing between these writes and the end of the trace is sync_file_range. It starts " +
			"writeback of a byte range, or waits for it, and no more: it writes none of the file's metadata " +
			"(its size, where its blocks are) and never asks the device to flush its own write cache. After a " +
			"crash the data can be unreadable because the size or block map never reached the disk, and pages " +
			"it did write can have been lost in the drive's volatile cache. It paces writeback; it does not " +
			"make anything durable.",
		Fix: "Keep sync_file_range for pacing if it helps, but call fdatasync (or fsync) on the file before " +
			"relying on the data.",
		Bad: trace(
			`openat(AT_FDCWD, "data.bin", O_WRONLY|O_CLOEXEC) = 3`,
			`pwrite64(3, "..."..., 65536, 0) = 65536`,
			`sync_file_range(3, 0, 65536, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE|SYNC_FILE_RANGE_WAIT_AFTER) = 0`,
			closeTmp,
		),
		Good: trace(
			`openat(AT_FDCWD, "data.bin", O_WRONLY|O_CLOEXEC) = 3`,
			`pwrite64(3, "..."..., 65536, 0) = 65536`,
			`sync_file_range(3, 0, 65536, SYNC_FILE_RANGE_WRITE) = 0`,
			`fdatasync(3) = 0`,
			closeTmp,
		),
		Seed:     "sync_file_range used for durability: it paces writeback, nothing more",
		detector: dataDetector,
	},
	{
		ID:       DirectIONotFlushed,
		Title:    "O_DIRECT writes not followed by fdatasync",
		Severity: Error,
		Doc: "The file was written with O_DIRECT and nothing synced it afterwards: no fdatasync or fsync, and " +
			"no O_DSYNC or O_SYNC on the open. O_DIRECT skips the page cache, not the device's own volatile " +
			"write cache: a write can return once the drive holds the bytes in that cache, and a power cut " +
			"loses them there. O_DIRECT does not make metadata durable either, so a file that direct writes " +
			"extended can come back shorter.",
		Fix: "Call fdatasync on the file after the direct writes that must be durable (one per commit, not " +
			"one per write), or open the file with O_DIRECT|O_DSYNC so each write returns only once it is durable.",
		Bad: trace(
			`openat(AT_FDCWD, "bench.bin", O_WRONLY|O_CREAT|O_TRUNC|O_DIRECT|O_CLOEXEC, 0644) = 3`,
			`write(3, "..."..., 65536) = 65536`,
			closeTmp,
		),
		Good: trace(
			`openat(AT_FDCWD, "bench.bin", O_WRONLY|O_CREAT|O_TRUNC|O_DIRECT|O_CLOEXEC, 0644) = 3`,
			`write(3, "..."..., 65536) = 65536`,
			`fdatasync(3) = 0`,
			closeTmp,
			openDir,
			fsyncDir,
		),
		Seed:     "crashsim iobench --mode direct without a closing fdatasync",
		detector: dataDetector,
	},
	{
		ID:       FsyncErrorIgnored,
		Title:    "A failed fsync was treated as if the data were safe",
		Severity: Error,
		Doc: "An fsync or fdatasync failed (EIO, ENOSPC, ...) and the program went on as if the data were " +
			"safe: it synced again and took the 0 as success, renamed the file into place, or exited 0. On " +
			"Linux a failed writeback reports its error once and marks the pages clean anyway, so a later fsync " +
			"that returns 0 only says nothing new failed; the bytes the failed call covered may never reach the " +
			"disk. After a crash, or once those pages leave the cache, the file can hold old or missing data.",
		Fix: "Treat a failed fsync as data loss. Do not retry the fsync and carry on: keep the previous version " +
			"(do not rename the temp file into place), rewrite the data from a copy the program still holds " +
			"into a new file and fsync that, or fail the save loudly.",
		Bad: trace(
			openTmp,
			writeTmp,
			`fsync(3) = -1 EIO (Input/output error)`,
			fsyncTmp,
			closeTmp,
			renameTmp,
		),
		Good: trace(
			openTmp,
			writeTmp,
			`fsync(3) = -1 EIO (Input/output error)`,
			closeTmp,
			`unlink("config.json.tmp") = 0`,
			`write(2, "save failed: Input/output error\n", 32) = 32`,
			`exit_group(1) = ?`,
		),
		Seed:     "PostgreSQL before 2019 (\"fsyncgate\"): it retried a failed fsync and trusted the 0",
		detector: syncErrDetector,
	},
	{
		ID:       CrossDirRename,
		Title:    "Temp file renamed into another directory",
		Severity: Warning,
		Doc: "A file was created in one directory and renamed into another. The move changes two directories, " +
			"and both must be fsynced before it is durable: a crash can leave the file under its old name, or " +
			"under both names when only the new directory was synced. When the two directories are on different " +
			"filesystems (a temp file in /tmp saved to /home), rename fails with EXDEV, and copying instead is " +
			"no longer atomic. A move whose two directories were both fsynced after it is durable, and is " +
			"said at info.",
		Fix: "Create the temp file in the directory of its final name (os.CreateTemp(filepath.Dir(path), ...) " +
			"in Go, tempfile.NamedTemporaryFile(dir=os.path.dirname(path)) in Python), so one rename and one " +
			"directory fsync do the job. If it must move between directories, fsync both after the rename.",
		Bad: trace(
			`openat(AT_FDCWD, "/tmp/config.json.tmp", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3`,
			writeTmp,
			fsyncTmp,
			closeTmp,
			`rename("/tmp/config.json.tmp", "/srv/app/config.json") = 0`,
		),
		Good: trace(
			`openat(AT_FDCWD, "/srv/app/config.json.tmp", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3`,
			writeTmp,
			fsyncTmp,
			closeTmp,
			`rename("/srv/app/config.json.tmp", "/srv/app/config.json") = 0`,
			`openat(AT_FDCWD, "/srv/app", O_RDONLY|O_DIRECTORY|O_CLOEXEC) = 4`,
			fsyncDir,
		),
		Seed:     "a temp file made in /tmp and renamed into place: it belongs in the same directory, on the same filesystem",
		detector: crossDirDetector,
	},
	{
		ID:       UnalignedWrite,
		Title:    "Writes not aligned to 4096-byte pages force read-modify-write",
		Severity: Info,
		Doc: "These writes start or end inside a 4096-byte page of existing file data. The kernel caches files " +
			"in whole pages, so to change part of a page that is not in memory it must first read that page " +
			"from disk, then write the whole page back. Under frequent fsync those reads stall the writer: " +
			"a timed run measured about 6 seconds for page-sized writes and over 2 minutes for the same work " +
			"unaligned. A page the trace read before, or that holds only bytes it wrote, is in memory and not " +
			"reported. This is about cost, not about what a crash leaves.",
		Fix: "Write whole, aligned pages where the format allows: pad records to 4096 bytes, gather small " +
			"updates into full pages before writing, or append instead of overwriting parts of pages.",
		Bad: trace(
			`openat(AT_FDCWD, "data.bin", O_WRONLY|O_CLOEXEC) = 3`,
			`pwrite64(3, "..."..., 1000, 1000) = 1000`,
			`fdatasync(3) = 0`,
		),
		Good: trace(
			`openat(AT_FDCWD, "data.bin", O_WRONLY|O_CLOEXEC) = 3`,
			`pwrite64(3, "..."..., 4096, 0) = 4096`,
			`fdatasync(3) = 0`,
		),
		Seed:     "page-sized vs unaligned writes (crashsim iobench --offset): read-modify-write stalls under fsync",
		detector: alignDetector,
	},
	{
		ID:       UnmodeledWrite,
		Title:    "File data changed in a way the trace cannot show",
		Severity: Warning,
		Doc: "A call the trace shows changed this file's data in a way it cannot show the bytes of: a reflink " +
			"(FICLONE, FICLONERANGE, FIDEDUPERANGE: the file now shares blocks with another) or fallocate moving " +
			"data (COLLAPSE_RANGE, INSERT_RANGE). crashsim knows when and which file changed, not what it holds " +
			"after, so its analysis of this file is incomplete: no other finding for it does not mean it is " +
			"safe. Stores into a shared writable mapping and io_uring are blind spots instead " +
			"(blind-shared-mmap, blind-io-uring): there the trace does not even show that the data changed.",
		Fix: "Check this file by other means, or trace a build that writes it with write, pwrite or " +
			"copy_file_range. After a clone, fsync the destination (and its directory, for a new name) " +
			"before relying on it.",
		Bad: trace(
			`openat(AT_FDCWD, "copy.img", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 4`,
			`ioctl(4, BTRFS_IOC_CLONE or FICLONE, 3) = 0`,
			`close(4) = 0`,
		),
		Good: trace(
			`openat(AT_FDCWD, "copy.img", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 4`,
			`copy_file_range(3, NULL, 4, NULL, 1048576, 0) = 1048576`,
			`fsync(4) = 0`,
			`close(4) = 0`,
		),
		Seed:     "cp --reflink (FICLONE) on btrfs or xfs",
		detector: unmodeledDetector,
	},
	{
		ID:       CheckerFailed,
		Title:    "The user's checker rejected a state a crash can leave",
		Severity: Error,
		Doc: "Produced by crashsim explore, not by crashsim check. explore built a state that a crash at some point " +
			"of the trace can leave on disk, ran the user's own checker command on it, and the checker failed. " +
			"The finding names the crash point and which pending operations persisted in that state, so the " +
			"failure can be reproduced. It means the program cannot recover from that crash: its config file " +
			"is empty and does not parse, say, or its database refuses to open. The rejected states of one file " +
			"are one problem, the first shown in full.",
		Fix: "Read the other findings at or before that crash point: they usually name the missing fsync. " +
			"Fix the save sequence, then run crashsim explore again until the checker accepts every state.",
		Bad: trace(
			openTmp,
			writeTmp,
			closeTmp,
			renameTmp,
			`# crash here: config.json can be empty, and the checker's json.load fails`,
		),
		Good: atomicSave,
		Seed: "ALICE (OSDI 2014): run the application's own checker on every crash state",
	},
}

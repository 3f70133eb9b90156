package check

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/crashsim/crashsim/source"
)

// Problem is one change the user must make: a mistake (its Rule), at one
// place (a call site in the program when the trace named it, else a
// file), on one file or on the files one call site wrote. The findings
// it causes are its members; the first finding of its rule is its
// primary, the others its consequences. See the package docs for how
// findings are grouped.
type Problem struct {
	Rule *Rule
	// Severity is that of its worst finding.
	Severity Severity
	// Program says the problem is the program's as a whole: it never
	// asked for durability, and every file it left unsynced is a member.
	Program bool
	Trace   string // the primary's trace (the first member's, for Program)
	Line    int    // the primary's line
	PID     int
	Path    string   // the primary's path
	Paths   []string // every member's path, each once, in report order
	// Dirs is how many of Paths are directories, when the check told
	// them apart (the program-level problem); 0 otherwise.
	Dirs int
	// Source is the primary's call site in the program, when known; for
	// a Program problem, that of its first data-not-synced finding that
	// has one (else of its first finding that has one).
	Source *source.Location
	// Message says what a crash can leave and what to change: the
	// primary's message, with the fix of a consequence the primary's fix
	// does not cover.
	Message string
	// Fix is the rule's fix, with the same additions.
	Fix string
	// StateIndex is its primary's (explore's rejected state), else 0.
	StateIndex int
	// Primary is the index in the Result of the primary finding, -1 for a
	// Program problem; Members those of every finding, the primary among
	// them, in report order.
	Primary int
	Members []int32
}

// Problems are a result's findings grouped (Group): each finding is a
// member of one problem.
type Problems struct {
	// List is the problems in report order: the program-level one first,
	// then by their first finding.
	List []*Problem
	// Of is the place in List of the problem of each finding, by its
	// index in the Result.
	Of []int32
	// Errors, Warnings and Infos count the problems by severity.
	Errors, Warnings, Infos int
}

// Len is how many problems there are.
func (ps *Problems) Len() int { return len(ps.List) }

// AtLeast reports whether a problem is at least as severe as t: what
// --fail-on asks.
func (ps *Problems) AtLeast(t Severity) bool {
	return ps.Errors > 0 && Error >= t || ps.Warnings > 0 && Warning >= t || ps.Infos > 0 && Info >= t
}

// A cause is a rule whose finding on a file makes other findings on the
// same file its consequences: the findings that one change (the fix of
// the cause) makes go away. causes are in the order they are tried, the
// mistake nearest the root first.
type cause struct {
	rule     string
	explains []string
	// also is what the fix of the cause must add for a consequence it
	// does not cover by itself, by rule.
	also map[string]string
}

// dataRules are the findings that say a file's data is not durable
// when something relies on it: what any missing or misplaced file sync
// leaves.
var dataRules = []string{DataNotSynced, RenameBeforeSync, RemoveBeforeSync, DirSyncBeforeData}

var causes = []cause{
	// The sync was made and failed: handling the error is the change.
	{rule: FsyncErrorIgnored, explains: append([]string{FsyncBeforeWrite}, dataRules...)},
	// The sync was made, too early (Python's missing flush), with the
	// wrong call, or not at all after O_DIRECT writes: moving or
	// replacing that call is the change, and the data findings go with it.
	{rule: FsyncBeforeWrite, explains: dataRules},
	{rule: SyncFileRangeNotDurable, explains: dataRules},
	{rule: DirectIONotFlushed, explains: dataRules},
	// The file was never synced: syncing it, and then its directory,
	// is the one change; the name findings go with the data ones.
	{rule: DataNotSynced, explains: []string{RenameBeforeSync, RemoveBeforeSync, DirSyncBeforeData, NameNotSynced},
		also: map[string]string{NameNotSynced: "then fsync the directory that holds its name"}},
	// The file was synced, but only after it was published: moving the
	// sync before the rename also makes the directory fsync safe.
	{rule: RenameBeforeSync, explains: []string{DirSyncBeforeData}},
}

// programRules are the primaries a program that never syncs has for
// lack of any sync: they join its program-level problem.
var programRules = []string{DataNotSynced, RenameBeforeSync, RemoveBeforeSync, NameNotSynced, DirSyncBeforeData}

// ruleIndex is each rule's place in the registry.
var ruleIndex = func() map[string]int {
	m := map[string]int{}
	for i, r := range registry {
		m[r.ID] = i
	}
	return m
}()

// fileRules is what Group knows of one file: which rules have findings
// on it, and the call site of the first finding of each.
type fileRules struct {
	rules uint64 // bit ruleIndex[id]
	sites map[int]*source.Location
	// nameLine is where the first name-not-synced finding on the file
	// is: the file has one, whose problem, when no call site is, is the
	// directory to fsync.
	nameLine int
	// primary is the rule whose problem each rule's findings join, by
	// rule index, once worked out (primaries): shared by every file
	// with the same rules.
	primary []int8
	// in lists the problems that name the file among their paths so
	// far; inSet holds them too once they are many.
	in    []int32
	inSet map[int32]bool
}

// joins records that problem n names the file, and reports whether that
// is new.
func (fr *fileRules) joins(n int32) bool {
	if fr.inSet != nil {
		if fr.inSet[n] {
			return false
		}
		fr.inSet[n] = true
		return true
	}
	if slices.Contains(fr.in, n) {
		return false
	}
	if fr.in = append(fr.in, n); len(fr.in) > 8 {
		// A file in many problems (a log written from many places)
		// would cost the square of them.
		fr.inSet = map[int32]bool{}
		for _, k := range fr.in {
			fr.inSet[k] = true
		}
		fr.in = nil
	}
	return true
}

// problemKey names a problem while Group builds them.
type problemKey struct {
	program bool
	rule    int
	file    string // call site file, or the traced path
	line    int    // call site line; 0 for a path
	// dir is, for name-not-synced without a call site, the directory
	// whose fsync is missing, file the trace, and sev the finding's
	// severity: see Group.
	dir string
	sev Severity
}

// Group groups a result's findings into problems, reading them twice
// (a spilled result from its temp file, each record only as far as its
// state index: the message of a problem's primary is read once, at the
// end). Call it once the findings' Source is set, after filtering: it
// groups what is there.
//
// Memory: an index of the files with findings (the rules found on each),
// and four bytes per finding naming its problem; a problem holds the
// indices of its findings and its paths. No finding is held.
func Group(r *Result) (*Problems, error) {
	files := map[string]*fileRules{}
	// Each finding's file, for the second pass: looked up again in a
	// map of every file, a trace of many files missed the cache.
	fileOf := make([]*fileRules, 0, r.Len())
	for f, err := range r.heads() {
		if err != nil {
			return nil, err
		}
		fr := files[f.Path]
		if fr == nil {
			fr = &fileRules{}
			files[f.Path] = fr
		}
		fileOf = append(fileOf, fr)
		i := ruleIndex[f.Rule.ID]
		if fr.rules&(1<<i) == 0 && f.Source != nil {
			if fr.sites == nil {
				fr.sites = map[int]*source.Location{}
			}
			fr.sites[i] = f.Source
		}
		if fr.rules&(1<<i) == 0 && f.Rule.ID == NameNotSynced {
			fr.nameLine = f.Line
		}
		fr.rules |= 1 << i
	}
	// Files with the same rules have the same primaries: a trace of
	// many files has few sets of rules.
	bySet := map[uint64][]int8{}
	for _, fr := range files {
		prim, ok := bySet[fr.rules]
		if !ok {
			prim = primaries(fr.rules)
			bySet[fr.rules] = prim
		}
		fr.primary = prim
	}
	unsynced := map[string]bool{}
	for _, t := range r.Unsynced {
		unsynced[t] = true
	}
	ps := &Problems{Of: make([]int32, 0, r.Len())}
	byKey := map[problemKey]int32{}
	var program *Problem
	programAt := false // the program-level problem's Source is a data-not-synced's
	// programData: the program-level problem holds a finding whose own
	// problem would not be name-not-synced; it then goes by
	// data-not-synced, else (a program that only created, renamed or
	// removed names) by name-not-synced.
	programData := false
	i := 0
	for f, err := range r.heads() {
		if err != nil {
			return nil, err
		}
		fr := fileOf[i]
		own := ruleIndex[f.Rule.ID]
		prim := int(fr.primary[own])
		k := problemKey{rule: prim, file: f.Path}
		switch {
		case unsynced[f.Trace] && slices.Contains(programRules, registry[prim].ID):
			k = problemKey{program: true}
		case prim == own && f.Source != nil:
			k.file, k.line = f.Source.File, f.Source.Line
		case fr.sites[prim] != nil:
			k.file, k.line = fr.sites[prim].File, fr.sites[prim].Line
		case registry[prim].ID == RenameBeforeDirSync && prim == own:
			// The files whose names a rename can outrun are one
			// problem: a directory fsync before that rename.
			k.file, k.line = f.Trace, f.Line
		case registry[prim].ID == NameNotSynced && fr.nameLine > 0:
			// Without a call site, a name's problem is the directory
			// whose fsync is missing, in the finding's trace (a problem
			// is of one trace: in an -ff set, of one process): one
			// fsync of it is the change. The two names of a rename in one directory
			// (the old one can come back, the new one be missing) are
			// one problem, and so are the 256 directories a program
			// makes in one (restic's data/00 to data/ff); a rename
			// from one directory into another needs both synced, two
			// changes. Names of different severities stay apart: a
			// socket's name, which holds no data (info), does not head
			// a lock file's that can come back (warning).
			k.file, k.dir, k.sev = f.Trace, path.Dir(f.Path), f.Rule.Severity
		}
		n, ok := byKey[k]
		if !ok {
			n = int32(len(ps.List))
			byKey[k] = n
			p := &Problem{Rule: registry[prim], Program: k.program, Primary: -1}
			if k.program {
				program = p
			}
			ps.List = append(ps.List, p)
		}
		p := ps.List[n]
		p.Members = append(p.Members, int32(i))
		if p.Program && registry[prim].ID != NameNotSynced {
			programData = true
		}
		if f.Rule.Severity > p.Severity {
			p.Severity = f.Rule.Severity
		}
		if fr.joins(n) {
			p.Paths = append(p.Paths, f.Path)
		}
		if p.Trace == "" {
			p.Trace, p.Line, p.PID, p.Path = f.Trace, f.Line, f.PID, f.Path
		}
		if p.Program && f.Source != nil && (p.Source == nil || f.Rule.ID == DataNotSynced && !programAt) {
			// The program-level problem is at the first place a file is
			// left unsynced, when stacks name one: where a sync goes.
			p.Source, programAt = f.Source, f.Rule.ID == DataNotSynced
		}
		if !p.Program && p.Primary < 0 && own == prim {
			p.Primary = i
			p.Trace, p.Line, p.PID, p.Path, p.Source = f.Trace, f.Line, f.PID, f.Path, f.Source
			p.Rule, p.Message, p.StateIndex = f.Rule, f.Message, f.StateIndex
		}
		ps.Of = append(ps.Of, n)
		i++
	}
	for _, p := range ps.List {
		if p.Primary >= 0 && p.Message == "" {
			// A spilled primary's head came without its message.
			f, err := r.At(p.Primary)
			if err != nil {
				return nil, err
			}
			p.Message = f.Message
		}
		p.Fix = p.Rule.Fix
		if p.Program {
			p.Rule = registry[ruleIndex[NameNotSynced]]
			if programData {
				p.Rule = registry[ruleIndex[DataNotSynced]]
			}
			p.Dirs = countDirs(p.Paths, r.dirs)
			p.Message = programMessage(p, programData)
			p.Fix = "Sync what must survive a crash: fsync (or fdatasync) each file after its last write and before it is renamed into place, and fsync the directory after creating, renaming or removing a name in it. " + p.Rule.Fix
			if !programData {
				p.Fix = "Sync what must survive a crash. " + p.Rule.Fix
			}
		} else {
			for _, also := range p.also(files) {
				p.Message += "; " + also
				p.Fix += " Then " + strings.TrimPrefix(also, "then ") + "."
			}
		}
		if p.Message == "" {
			// The primary was left out (a filter): the first member speaks.
			p.Message = fmt.Sprintf("%s: %s", p.Rule.ID, p.Rule.Title)
		}
		ps.count(p.Severity)
	}
	if program != nil && ps.List[0] != program {
		// The program-level problem comes first: renumber.
		at := slices.Index(ps.List, program)
		ps.List = append([]*Problem{program}, slices.Delete(ps.List, at, at+1)...)
		for j, n := range ps.Of {
			switch {
			case int(n) == at:
				ps.Of[j] = 0
			case int(n) < at:
				ps.Of[j] = n + 1
			}
		}
	}
	return ps, nil
}

// also is what p's fix must add for its consequences: the fix of a
// consequence its cause does not cover, once each.
func (p *Problem) also(files map[string]*fileRules) []string {
	var out []string
	for _, c := range causes {
		if c.rule != p.Rule.ID {
			continue
		}
		for _, path := range p.Paths {
			fr := files[path]
			for id, words := range c.also {
				if fr.rules&(1<<ruleIndex[id]) != 0 && int(fr.primary[ruleIndex[id]]) == ruleIndex[p.Rule.ID] && !slices.Contains(out, words) {
					out = append(out, words)
				}
			}
		}
	}
	return out
}

// countDirs counts the directories among paths.
func countDirs(paths []string, dirs dirSets) int {
	n := 0
	for _, x := range paths {
		if dirs.has(x) {
			n++
		}
	}
	return n
}

// programMessage says what a program that never syncs risks; data says
// whether it left data unsynced, or only names. Its paths can hold
// directories (Dirs: a tar extraction makes some).
func programMessage(p *Problem, data bool) string {
	fix := "sync each file after its last write and each directory after its names change"
	if !data {
		fix = "fsync each directory after its names change"
	}
	nd := p.Dirs
	what := plural(len(p.Paths)-nd, "file", "files")
	switch {
	case nd > 0 && nd == len(p.Paths):
		what = plural(nd, "directory", "directories")
	case nd > 0:
		what += " and " + plural(nd, "directory", "directories")
	}
	return fmt.Sprintf("the program never calls fsync, fdatasync or sync: a crash can lose or undo what it changed in %s (%s); %s",
		what, listPaths(p.Paths, 5), fix)
}

// listPaths names the first n paths by their base name, and how many
// more there are.
func listPaths(ps []string, n int) string {
	var names []string
	for _, p := range ps[:min(n, len(ps))] {
		names = append(names, base(p))
	}
	s := strings.Join(names, ", ")
	if len(ps) > n {
		s += fmt.Sprintf(" and %d more", len(ps)-n)
	}
	return s
}

// primaries works out, for the rules found on one file, the rule whose
// problem each one's findings join, by rule index (-1 for a rule not
// found): the causes in order take the rules they explain that no
// earlier cause took; a rule no cause took is its own problem.
func primaries(rules uint64) []int8 {
	out := make([]int8, len(registry))
	for i := range out {
		out[i] = -1
	}
	for _, c := range causes {
		ci := ruleIndex[c.rule]
		if rules&(1<<ci) == 0 {
			continue
		}
		if out[ci] >= 0 {
			continue // a consequence of an earlier cause
		}
		out[ci] = int8(ci)
		for _, id := range c.explains {
			ei := ruleIndex[id]
			if out[ei] < 0 && rules&(1<<ei) != 0 {
				out[ei] = int8(ci)
			}
		}
	}
	for i := range registry {
		if out[i] < 0 && rules&(1<<i) != 0 {
			out[i] = int8(i)
		}
	}
	return out
}

func (ps *Problems) count(s Severity) {
	switch s {
	case Error:
		ps.Errors++
	case Warning:
		ps.Warnings++
	case Info:
		ps.Infos++
	}
}

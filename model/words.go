package model

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// The words for crash states. Every sentence crashsim prints about what a
// crash can leave (check's findings and their state lines, states,
// explore, the oracle) is made here, so that a message never names a loss
// its example state does not show.

// OutcomeWords says what an outcome leaves at a path, as a phrase that
// follows "can leave PATH" or "PATH can be".
func OutcomeWords(o Outcome) string {
	switch o {
	case Missing:
		return "missing"
	case Initial:
		return beforeRun
	case Latest:
		return "as the program saw it then"
	case Earlier:
		return "with an earlier version the program wrote"
	case Empty:
		return "empty"
	case Torn:
		return "torn (some of its new data on disk, some not)"
	case Zeros:
		return "full of zeros where its new data should be"
	}
	return string(o)
}

// beforeRun is what OutcomeWords says of Initial.
const beforeRun = "as it was before the run"

// BeforeRunWords says what Initial leaves at p when the file there had
// another name before the run, orig, and was renamed to p during it (a
// backup made by rename, a rotated log): "as db.dir was before the run",
// not as p was, which was another file. orig "" (or p) is p's own file.
func BeforeRunWords(p, orig string) string {
	if orig == "" || orig == p {
		return beforeRun
	}
	name := orig
	if path.Dir(orig) == path.Dir(p) {
		name = path.Base(orig)
	}
	return "as " + name + " was before the run"
}

// RenamedBeforeRun rewrites words that list outcomes of p (LossWords)
// for files left at p as they were before the run under the names origs
// ("" for p's own, see BeforeRunWords): "as db.dir was before the run or
// torn", "as it or db.dir was before the run". Words that name no such
// outcome, or origs that are all p's own, come back as they are.
func RenamedBeforeRun(words, p string, origs []string) string {
	if !strings.Contains(words, beforeRun) {
		return words
	}
	var names []string
	renamed := false
	for _, o := range origs {
		name := "it"
		if w := BeforeRunWords(p, o); w != beforeRun {
			name, renamed = strings.TrimSuffix(strings.TrimPrefix(w, "as "), " was before the run"), true
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if !renamed {
		return words
	}
	return strings.Replace(words, beforeRun, "as "+orList(names)+" was before the run", 1)
}

// movedAwayWords says what an earlier version at p is when it is all
// the program wrote to a file that p no longer names: a temp file written
// once, synced and renamed into place, left at its temp name by a crash
// that kept the rename off the disk holds its only version, not "an
// earlier" one. "" for any other state.
func movedAwayWords(m *Model, p string, s PathState, ino *Inode) string {
	if s.Outcome != Earlier || ino == nil || ino.Dir || s.Persisted != "all" && ino.DataPending() {
		return ""
	}
	if n := m.names[p]; n != nil && n.Cache == ino {
		return ""
	}
	if len(ino.Names()) > 0 {
		return "as the program wrote it, before it was renamed"
	}
	return "as the program wrote it, before it was removed"
}

// origName is the name the file of state s at p had before the run, when
// s leaves it there as it was then and it had another name (see
// BeforeRunWords); "" otherwise. An inode from before the trace is first
// met under a name it had then, the first of its Paths. An unsure one (a
// temp file opened with O_CREAT, which may have made it) keeps the plain
// words: "as settings.tmp was before the run" would name as a file one
// the run most likely made, where the state's own words say so (Unsure).
func origName(p string, s PathState, ino *Inode) string {
	if s.Outcome != Initial || ino == nil || !ino.Initial || ino.Unsure || ino.Dir {
		return ""
	}
	if ps := ino.Paths(); len(ps) > 0 && ps[0] != p {
		return ps[0]
	}
	return ""
}

// NameBeforeRun is, for a state s of p that leaves a file as it was
// before the run, the name that file had then when it is not p (see
// BeforeRunWords); "" for any other state.
func (m *Model) NameBeforeRun(p string, s PathState) string {
	if s.Outcome != Initial {
		return ""
	}
	return origName(p, s, m.Inode(s.Inode))
}

// PersistedWords says which pending data operations a state kept, as a
// phrase followed by "persisted".
func PersistedWords(p string) string {
	switch p {
	case "none":
		return "none of its pending writes"
	case "all":
		return "all of its pending writes"
	}
	if rest, ok := strings.CutPrefix(p, "up to line "); ok {
		// "empty (up to line 12 persisted)" read as a contradiction
		// where line 12 is the open that truncated the file.
		return "its changes up to line " + rest
	}
	return p
}

// StateWords describes one crash state of path: the outcome, what
// persisted, and why where the outcome alone would mislead (a directory
// above that is missing, a file the trace cannot tell existed, a latest
// version that is an empty file).
func (m *Model) StateWords(p string, s PathState) string {
	return m.stateWords(p, s, m.Inode(s.Inode))
}

// stateWords is StateWords with the state's inode looked up (nil: none).
// It reads the model and changes nothing (Still calls it).
func (m *Model) stateWords(p string, s PathState, ino *Inode) string {
	var b strings.Builder
	if s.Outcome == Empty && ino != nil && ino.node != nodeFile {
		// A socket, fifo, device node or symlink holds no data: "empty"
		// would read as a file that lost its data.
		b.WriteString("as the " + nodeNames[ino.node] + " the run made")
	} else if s.Outcome == Initial {
		b.WriteString(BeforeRunWords(p, origName(p, s, ino)))
	} else if w := movedAwayWords(m, p, s, ino); w != "" {
		b.WriteString(w)
	} else {
		b.WriteString(OutcomeWords(s.Outcome))
	}
	switch {
	case s.Gone != "":
		fmt.Fprintf(&b, " (its directory %s is missing)", s.Gone)
		return b.String()
	case s.Outcome == Initial && ino != nil && ino.Unsure && m.madeDurably(p):
		// The open that may have made it was synced: had nothing been
		// there, what it made is.
		b.WriteString(", which is an empty file if it did not exist before (the trace cannot tell)")
	case s.Outcome == Initial && ino != nil && ino.Unsure:
		b.WriteString(", which is no file at all if it did not exist (the trace cannot tell)")
	case s.Outcome == Latest && ino != nil && !ino.Dir && ino.Size == 0:
		b.WriteString(": empty")
	case s.Outcome == Earlier && s.Persisted == "none" && ino != nil && !ino.Dir:
		// The version on disk, which may be what a truncation not yet
		// durable cut back from space allocated and never written.
		if z, ok := ino.DurableZerosFrom(); ok && z < ino.DurableSize {
			b.WriteString(", " + ZerosWords(z, ino.DurableSize))
		}
	}
	// What persisted says nothing more of a file left as it was or gone
	// when none of its writes did: "as it was before the run (none of
	// its pending writes persisted)" read as if a file the program only
	// created had been written.
	quiet := s.Persisted == "none" && (s.Outcome == Initial || s.Outcome == Missing)
	// Nor of a file with no write pending: "none" and "all" of nothing
	// read as if there had been some (a temp file synced, then renamed,
	// left behind by a crash).
	quiet = quiet || ino != nil && !ino.DataPending() && (s.Persisted == "none" || s.Persisted == "all")
	if s.Inode != 0 && (ino == nil || !ino.Dir) && !quiet {
		fmt.Fprintf(&b, " (%s persisted)", PersistedWords(s.Persisted))
	}
	return b.String()
}

// madeDurably reports whether p, unsure (Name.Unsure: an open with
// O_CREAT may have made it, or opened what was there), had its
// directory's entries made durable after the event that made it unsure
// (Model.UnsureAt): by its directory's fsync, a sync, or a syncfs of its
// filesystem (unsureSynced). Had
// nothing been there, that event made the file, and the sync kept it: a
// crash can no longer leave no file at p.
func (m *Model) madeDurably(p string) bool {
	n := m.names[p]
	if n == nil || !n.wasUnsure {
		return false
	}
	at := m.unsureAt[n]
	synced, open := m.madeDurable[n]
	return at != nil && open && synced
}

// MadeDurably reports whether the unsure name p (see Name.Unsure) had its
// directory's entries made durable after the open that may have made it
// (see madeDurably): had nothing been there, a crash now leaves the file
// that open made. False for a name never unsure.
func (m *Model) MadeDurably(p string) bool { return m.madeDurably(p) }

// ZerosWords says what a file holds that has data up to kept and zeros
// from there up to size (see Inode.DurableZerosFrom): "its first 16 bytes
// followed by zeros up to 1048576 bytes".
func ZerosWords(kept, size int64) string {
	if kept == 0 {
		return fmt.Sprintf("only zeros, %d bytes of them", size)
	}
	return fmt.Sprintf("its first %d bytes followed by zeros up to %d bytes", kept, size)
}

// shortWords name outcomes in a list: "empty, torn or missing".
var shortWords = map[Outcome]string{
	Missing: "missing", Initial: beforeRun, Latest: "as the program saw it",
	Earlier: "an earlier version", Empty: "empty", Torn: "torn", Zeros: "full of zeros",
}

// LossWords lists, in the order given, the losing outcomes a crash can
// leave at a path: "empty, torn or missing".
func LossWords(po PathOutcomes, order []Outcome) string {
	var words []string
	for _, o := range order {
		for _, have := range po.Outcomes {
			if have == o {
				words = append(words, shortWords[o])
			}
		}
	}
	return orList(words)
}

// LossWordsFor is LossWords with its order fixed, worked out once for
// every set of outcomes: what a crash can leave is then a lookup, not a
// slice and a join for each file a rule asks about.
func LossWordsFor(order []Outcome) func(PathOutcomes) string {
	var table [len(outcomeSets)]string
	for set := range table {
		table[set] = LossWords(PathOutcomes{Outcomes: outcomeSets[set]}, order)
	}
	return func(po PathOutcomes) string { return table[setOfOutcomes(po.Outcomes)] }
}

// OutcomeChoice says outcomes as alternatives, each as OutcomeWords does:
// "missing or as the program saw it then".
func OutcomeChoice[O ~string](os []O) string {
	words := make([]string, len(os))
	for i, o := range os {
		words[i] = OutcomeWords(Outcome(o))
	}
	return orList(words)
}

// orList joins alternatives: "a, b or c".
func orList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// OutcomeList names a set of outcomes for a column of outcomes (states,
// the oracle): "latest | empty | zeros".
func OutcomeList[O ~string](os []O) string {
	var b strings.Builder
	for i, o := range os {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(string(o))
	}
	return b.String()
}

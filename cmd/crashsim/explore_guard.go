package main

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/crashsim/crashsim/report"
)

// rootStamps is what each entry below explore's root looked like before
// the checkers ran: without the jail (no CAP_SYS_ADMIN) a checker can
// write the real files there (an absolute path in the checker), and the
// change shows as a new ctime.
type rootStamps map[string]stamp

type stamp struct {
	ino, size  int64
	ctime      int64
	mode       fs.FileMode
	existedDir bool
}

// maxGuarded bounds the entries snapshotted: a larger root is not watched.
const maxGuarded = 100_000

func stampsOf(root string) (rootStamps, bool) {
	st := rootStamps{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if len(st) >= maxGuarded {
			return fs.SkipAll
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		s := stamp{size: fi.Size(), mode: fi.Mode(), existedDir: fi.IsDir()}
		if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
			s.ino, s.ctime = int64(sys.Ino), sys.Ctim.Nano()
		}
		st[p] = s
		return nil
	})
	return st, err == nil && len(st) < maxGuarded
}

// changedSince lists the entries below root that appeared, went or changed
// since before was taken.
func changedSince(root string, before rootStamps) []string {
	after, _ := stampsOf(root)
	var ch []string
	for p, a := range after {
		if b, ok := before[p]; !ok || a != b {
			ch = append(ch, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			ch = append(ch, p)
		}
	}
	sort.Strings(ch)
	return ch
}

// warnChanged says that checkers changed the real files below root.
func warnChanged(g *Globals, root string, ch []string) {
	if len(ch) == 0 {
		return
	}
	shown := ch
	if len(shown) > 3 {
		shown = shown[:3]
	}
	entries := fmt.Sprintf("%d entries", len(ch))
	if len(ch) == 1 {
		entries = "1 entry"
	}
	fmt.Fprintf(g.stderr, "crashsim: warning: while the checkers ran, %s below %s changed, though each checker runs in a state directory elsewhere: a checker wrote the real files (an absolute path?): %s; run explore with CAP_SYS_ADMIN (as root) to jail checkers, or have the checker use relative paths or $CRASHSIM_STATE_DIR\n",
		entries, report.QuotePaths([]string{root})[0], strings.Join(report.QuotePaths(append([]string(nil), shown...)), ", "))
}

package explore

import (
	"io/fs"
	"path/filepath"
	"sort"
)

// Unjailed (no CAP_SYS_ADMIN), a checker can write the real files below
// the root (an absolute path in the checker): Run stamps each entry there
// before the checkers run and lists, in Result.RootChanged, those that
// appeared, went or changed (a new ctime) by the end.

// rootStamps is what each entry below the root looked like.
type rootStamps map[string]rootStamp

type rootStamp struct {
	ino, size  int64
	ctime      int64
	mode       fs.FileMode
	existedDir bool
}

// maxGuarded bounds the entries stamped: a larger root is not watched.
const maxGuarded = 100_000

// stampsOf stamps the entries below root, reporting false when there are
// too many to watch.
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
		s := rootStamp{size: fi.Size(), mode: fi.Mode(), existedDir: fi.IsDir()}
		s.ino, s.ctime = inodeTimes(fi)
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

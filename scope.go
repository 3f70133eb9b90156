package crashsim

import (
	"path/filepath"
	"slices"

	"github.com/crashsim/crashsim/check"
)

// Scope says which paths a check, a replay or an exploration reports on.
// Whatever reads it (check, states, the HTML page, explore) decides a
// path's scope through check.Options.InScope, built by one function here:
// the same globs leave out the same paths everywhere.
type Scope struct {
	// Roots limit the paths to those below these directories (absolute,
	// or relative to the current directory). None: the roots a trace's
	// listing says it was recorded with (Start.Roots: crashsim trace's
	// scope, so that a check of its trace agrees with it), else every
	// path but pseudo files (/proc, /sys, /dev, pipes, sockets) and
	// volatile filesystems.
	Roots []string
	// Ignore leaves out paths matching these globs (check.MatchGlob: "**"
	// crosses directories; the whole path, the path relative to its root
	// or start directory, and a glob without '/' the base name).
	Ignore []string
}

// Validate rejects a glob that cannot be matched, before any work is done.
func (s Scope) Validate() error {
	for _, g := range s.Ignore {
		if !check.ValidGlob(g) {
			return usageErrorf("--ignore %q: bad glob (a '[' with no ']'?)", g)
		}
	}
	return nil
}

// options is the scope of one trace as check reads it, with what the
// trace's start says.
func (in *Inputs) options(s Scope, st Start) check.Options {
	roots := s.Roots
	if len(roots) == 0 {
		roots = st.Roots
	}
	opt := check.Options{Roots: absRoots(roots), Ignore: s.Ignore, Mounts: in.Mounts, Existed: st.Existed, InitialSize: st.InitialSize, Cwd: st.Cwd, FDs: st.FDs, NameFiles: st.Set, SetPrefix: st.SetPrefix, SetOthers: st.SetOthers}
	if len(in.Mounts) == 0 {
		opt.LikelyVolatile = check.LikelyVolatile
	}
	return opt
}

// absRoots is each root as given and, when it differs, as an absolute
// path: a trace names paths either way. A root that is, or lies below, a
// symlink on this machine is also taken where the link leads: strace -y
// names a file by the path the kernel reached, and the model follows it
// (a program that wrote below --root /srv/link, a link to /srv/real,
// checked clean with its file out of scope).
func absRoots(roots []string) []string {
	var out []string
	for _, r := range roots {
		out = append(out, r)
		abs, err := filepath.Abs(r)
		if err == nil && abs != r {
			out = append(out, abs)
		}
		if err != nil {
			abs = r
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

package crashsim

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/inputfile"
	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// Inputs are what was recorded, and what the traces alone do not say about
// where: what existed before, where the program started, which
// filesystems are volatile.
type Inputs struct {
	// Traces are strace logs, or PREFIXes of strace -ff sets.
	Traces []string
	// Listing names the listing of what existed before the traces (the
	// format of model.ReadInitial). "" reads TRACE.initial beside each
	// trace when there is one, as crashsim trace writes it.
	Listing string
	// Cwd is the directory the traced program started in, when the caller
	// knows it: it wins over a listing's "cwd" line. Traces recorded
	// without -y need one to resolve relative paths.
	Cwd string
	// Existed says what existed before the traces when something other
	// than a listing knows it (a snapshot of the root): it wins over the
	// listing's.
	Existed func(path string) (existed, known bool)
	// InitialSize, with Existed, says the sizes of the files that existed
	// (those of the snapshot): the listing's may not be of the same files.
	InitialSize func(path string) (size int64, known bool)
	// Mounts are the filesystems of the machine the traces were recorded
	// on, when that is this one (crashsim trace): paths on tmpfs and ramfs
	// are out of scope. Nil takes check.LikelyVolatile as tmpfs.
	Mounts []check.Mount
	// Arch is the architecture of the machine the traces were recorded
	// on, when the caller knows it (--arch): it wins over a listing's
	// "arch" line. Unknown leaves it to the listing, then to the traces
	// (parser.Options.Arch): it decides what flags printed as numbers mean.
	Arch parser.Arch

	// Parse are the parser options every trace is read with: Warn, Diag,
	// MaxLine. Which arguments are decoded is chosen per reading.
	Parse parser.Options
	// Open opens a trace with the options given (the command line adds a
	// progress line and a parsing goroutine); nil is parser.Open.
	Open func(trace string, opt parser.Options) (parser.Stream, error)
}

// readFor says what a reading of a trace decodes.
type readFor int

const (
	forModel readFor = iota // only the arguments the model reads (model.ArgPositions)
	forAll                  // every argument: the reading prints calls
	forCount                // nothing: the reading counts events
)

// open opens a trace to read it for what, its flags read as arch's (see
// Start.Arch). The reader may keep the events.
func (in *Inputs) open(trace string, what readFor, arch parser.Arch) (parser.Stream, error) {
	return in.openRecycled(trace, what, arch, false)
}

// openRecycled is open; recycle says that the reader keeps no event (nor
// any part of one but strings) past the next call to Next, so that a
// parsing goroutine may build later events in its memory
// (parser.Options.Recycle).
func (in *Inputs) openRecycled(trace string, what readFor, arch parser.Arch, recycle bool) (parser.Stream, error) {
	opt := in.Parse
	opt.Arch = arch
	opt.Recycle = recycle
	opt.DecodeArgs, opt.DecodePositions, opt.DecodeNone = nil, nil, false
	switch what {
	case forModel:
		opt.DecodePositions = model.ArgPositions
	case forCount:
		opt.DecodeNone = true
	}
	open := in.Open
	if open == nil {
		open = parser.Open
	}
	s, err := open(trace, opt)
	if err != nil {
		return nil, inputError(err)
	}
	return s, nil
}

// Start is where a trace begins, from the listing and the inputs: what
// the model needs before the first event.
type Start struct {
	Cwd     string                                  // where the program started; "" when unknown
	FDs     []model.InitialFD                       // the files it started with open
	Existed func(path string) (existed, known bool) // what existed before; nil when no listing says
	// InitialSize is the size of a regular file before the trace, when
	// the listing says (crashsim trace's does); nil when none does.
	InitialSize func(path string) (size int64, known bool)
	Arch        parser.Arch // the machine's architecture: Inputs.Arch, else the listing's; Unknown when neither says
	// Roots are the roots the trace was checked with when crashsim trace
	// recorded it (the listing's "scope" lines): the scope of a check
	// that is given none.
	Roots []string
	// Set: the trace is the PREFIX of an strace -ff set, whose files
	// number their lines each from 1 (model.Options.NameFiles).
	Set bool
	// SetPrefix and SetOthers: the trace is one file of an -ff set, the
	// other files of the set lie beside it (parser.SetOf).
	SetPrefix string
	SetOthers []string
}

// Start reads what is known of where a trace begins: its listing (see
// Inputs.Listing) and Cwd.
func (in *Inputs) Start(trace string) (Start, error) {
	st := Start{Set: parser.IsSet(trace)}
	if !st.Set {
		st.SetPrefix, st.SetOthers = parser.SetOf(trace)
	}
	l, err := in.listing(trace)
	if err != nil {
		return st, err
	}
	if l != nil {
		st.Cwd, st.FDs, st.Existed, st.Arch, st.Roots = l.Cwd, l.FDs, l.Existed, l.Arch, l.Scope
		st.InitialSize = l.Size
	}
	if in.Arch != syscalls.Unknown {
		st.Arch = in.Arch
	}
	if in.Existed != nil {
		// Another source says what existed: the listing's sizes may
		// not be of the same files.
		st.Existed, st.InitialSize = in.Existed, in.InitialSize
	}
	if in.Cwd != "" {
		abs, err := filepath.Abs(in.Cwd)
		if err != nil {
			return st, &UsageError{err}
		}
		st.Cwd = abs
	}
	return st, nil
}

// ModelOptions are the options of the page-cache model that replays a
// trace under persistence model p, from what its Start says.
func (st Start) ModelOptions(p model.Persistence) model.Options {
	return model.Options{Persistence: p, Existed: st.Existed, InitialSize: st.InitialSize, Cwd: st.Cwd, FDs: st.FDs, NameFiles: st.Set}
}

// Procs is the process model a trace starts from: the start directory
// and the files open at the start.
func (st Start) Procs() *model.Procs {
	p := model.NewProcsIn(st.Cwd)
	p.SetInitialFDs(st.FDs)
	return p
}

// MaxListingSize bounds a listing, which is held in memory as it is
// read: crashsim trace lists at most MaxListed entries, a few MiB.
const MaxListingSize = 256 << 20

// listing reads the listing of what existed before a trace: the one
// Listing names, or TRACE.initial beside the trace; nil when there is
// none. One that is not a regular file (a pipe is taken when named) is
// refused (inputfile).
func (in *Inputs) listing(trace string) (*model.Listing, error) {
	name, origin := in.Listing, inputfile.Named
	if name == "" {
		name, origin = trace+".initial", inputfile.Found
	}
	file, err := openListing(name, origin)
	if origin == inputfile.Found && errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer file.Close()
	l, err := model.ReadInitial(bufio.NewReader(inputfile.Capped(file, MaxListingSize)), name)
	if err != nil {
		return nil, &InputError{err}
	}
	return l, nil
}

// openListing opens a listing, an error worded for a person: one named
// is --initial-list's ("cannot read --initial-list old.txt: no such
// file").
func openListing(name string, origin inputfile.Origin) (*os.File, error) {
	file, err := inputfile.Open(name, origin)
	if err != nil {
		what := "the initial listing"
		if origin == inputfile.Named {
			what = "--initial-list"
		}
		return nil, &InputError{inputfile.Describe(what, err)}
	}
	return file, nil
}

// CheckListing says, as Inputs.Listing's reading would, when the listing
// name cannot be opened, for a command to ask before it runs a program
// rather than once the program has run. Nothing is read: a pipe named as
// the listing keeps what it holds for the reading.
func CheckListing(name string) error {
	file, err := openListing(name, inputfile.Named)
	if err != nil {
		return err
	}
	return file.Close()
}

// JoinSets gives the PREFIX of an strace -ff set in place of its files
// when every one of them is among traces, as a shell's "PREFIX.*" gives
// them: each file holds one process, and only the set read as one (in
// the order of its timestamps) is the recording. Read one by one, a
// sync in one process did not count for a write in another. The prefix
// stands where the set's first file did; a set given in part stays as
// given (each such file says blind-partial-set).
func JoinSets(traces []string) []string {
	if len(traces) < 2 {
		return traces
	}
	given := make(map[string]bool, len(traces))
	for _, t := range traces {
		given[filepath.Clean(t)] = true
	}
	out := make([]string, 0, len(traces))
	joined := map[string]bool{}
	for _, t := range traces {
		prefix, others := parser.SetOf(t)
		whole := prefix != ""
		for _, o := range others {
			whole = whole && given[filepath.Clean(o)]
		}
		switch {
		case !whole:
			out = append(out, t)
		case !joined[prefix]:
			joined[prefix] = true
			out = append(out, parser.SetName(prefix))
		}
	}
	return out
}

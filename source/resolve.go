package source

import (
	"debug/dwarf"
	"debug/elf"
	"debug/gosym"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Location is a place in the program's source.
type Location struct {
	File     string `json:"file"`     // as the debug information names it (usually absolute)
	Line     int    `json:"line"`     // 0 when the binary has no line information
	Function string `json:"function"` // "main.save", "main"
}

func (l Location) String() string {
	if l.Line == 0 {
		return l.Function
	}
	return fmt.Sprintf("%s:%d", l.File, l.Line)
}

// Resolver finds locations, reading each binary once. It is not safe for
// concurrent use.
type Resolver struct {
	bins map[string]*binary
	// open opens a module; tests replace it. nil is elf.Open.
	open func(path string) (*elf.File, error)
}

// NewResolver returns an empty resolver.
func NewResolver() *Resolver { return &Resolver{bins: map[string]*binary{}} }

// binary is what a module's file says about its addresses.
type binary struct {
	err   error
	isGo  bool
	loads []*elf.ProgHeader
	dwarf *dwarf.Data
	lines []lineRange // from DWARF, sorted by lo
	gotab *gosym.Table
	memo  map[uint64]Location
}

// lineRange is a run of addresses sharing one line.
type lineRange struct {
	lo, hi uint64
	file   string
	line   int
}

// Locate returns the location of the user's frame in a stack (innermost
// first, as strace prints it) and whether it found one. A stack with no
// frame outside the system's machinery, or whose frame's binary has no
// debug information, gives false; err says why when a frame or binary
// could not be read.
func (r *Resolver) Locate(stack []string) (Location, bool, error) {
	for i, s := range stack {
		f, err := ParseFrame(s)
		if err != nil {
			if unwindError(s) {
				// strace could not unwind past the frames above, all of
				// them the system's: no frame of the program's own is
				// known, which is no error in the stack.
				return Location{}, false, nil
			}
			return Location{}, false, err
		}
		if systemModule(f.Module) {
			continue
		}
		b := r.binary(f.Module)
		if b.err != nil {
			return Location{}, false, b.err
		}
		if b.isGo && goMachinery(f.Symbol) {
			continue
		}
		pc, ok := b.vaddr(f.Offset)
		if !ok {
			return Location{}, false, fmt.Errorf("%s: no loaded segment holds file offset %#x: was the binary rebuilt since the trace?", f.Module, f.Offset)
		}
		if i > 0 {
			// A caller's address is where the call returns to: the
			// instruction after the call, possibly on the next line.
			pc--
		}
		loc := b.locate(pc)
		if loc.Function == "" {
			loc.Function = f.Symbol
		}
		return loc, loc.Line > 0, nil
	}
	return Location{}, false, nil
}

func (r *Resolver) binary(path string) *binary {
	if b := r.bins[path]; b != nil {
		return b
	}
	b := &binary{memo: map[uint64]Location{}}
	r.bins[path] = b
	open := r.open
	if open == nil {
		open = elf.Open
	}
	f, err := open(path)
	if err != nil {
		b.err = fmt.Errorf("read the program for its source lines: %w", err)
		return b
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			b.loads = append(b.loads, &p.ProgHeader)
		}
	}
	b.isGo = f.Section(".gopclntab") != nil || f.Section(".go.buildinfo") != nil
	if d, err := f.DWARF(); err == nil {
		b.dwarf = d
		b.lines, err = lineRanges(d)
		if err != nil {
			b.err = fmt.Errorf("%s: DWARF line table: %w", path, err)
			return b
		}
	}
	if len(b.lines) == 0 && b.isGo {
		b.gotab = goTable(f)
	}
	return b
}

// vaddr turns a file offset into the virtual address the binary's own
// tables use.
func (b *binary) vaddr(off uint64) (uint64, bool) {
	for _, p := range b.loads {
		if off >= p.Off && off < p.Off+p.Filesz {
			return off - p.Off + p.Vaddr, true
		}
	}
	return 0, false
}

func (b *binary) locate(pc uint64) Location {
	if l, ok := b.memo[pc]; ok {
		return l
	}
	var l Location
	i := sort.Search(len(b.lines), func(i int) bool { return b.lines[i].hi > pc })
	if i < len(b.lines) && b.lines[i].lo <= pc {
		l.File, l.Line = b.lines[i].file, b.lines[i].line
		l = b.outline(pc, l)
	} else if b.gotab != nil {
		file, line, fn := b.gotab.PCToLine(pc)
		l.File, l.Line = file, line
		if fn != nil {
			l.Function = fn.Name
		}
	}
	b.memo[pc] = l
	return l
}

// outline undoes inlining: the line table names the innermost inlined
// function's line (os.Create's, inlined into main.save), and the user's
// line is where the first function of theirs calls it. Inline frames that
// are machinery (Go's standard library, C's system headers) are skipped
// the way real frames are.
func (b *binary) outline(pc uint64, inner Location) Location {
	chain := inlineChain(b.dwarf, pc)
	if len(chain) == 0 {
		return inner
	}
	inner.Function = chain[len(chain)-1].Function
	frames := []Location{inner}
	for i := len(chain) - 2; i >= 0; i-- {
		frames = append(frames, Location{File: chain[i].File, Line: chain[i].Line, Function: chain[i].Function})
	}
	for _, f := range frames {
		if f.Line == 0 {
			continue
		}
		if b.isGo && goMachinery(f.Function) || !b.isGo && systemHeader(f.File) {
			continue
		}
		return f
	}
	return frames[len(frames)-1]
}

// systemHeader reports whether a C source file is one the system installed
// (an inline function from a libc header).
func systemHeader(file string) bool {
	return strings.HasPrefix(file, "/usr/include/") || strings.HasPrefix(file, "/usr/lib/gcc/")
}

// lineRanges flattens every compilation unit's line table into sorted
// address ranges.
func lineRanges(d *dwarf.Data) ([]lineRange, error) {
	var out []lineRange
	rd := d.Reader()
	for {
		cu, err := rd.Next()
		if err != nil {
			return nil, err
		}
		if cu == nil {
			break
		}
		if cu.Tag != dwarf.TagCompileUnit {
			rd.SkipChildren()
			continue
		}
		lr, err := d.LineReader(cu)
		rd.SkipChildren()
		if err != nil {
			return nil, err
		}
		if lr == nil {
			continue
		}
		var prev dwarf.LineEntry
		have := false
		for {
			var e dwarf.LineEntry
			err := lr.Next(&e)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
			if have && e.Address > prev.Address && prev.File != nil && prev.Line > 0 {
				out = append(out, lineRange{lo: prev.Address, hi: e.Address, file: prev.File.Name, line: prev.Line})
			}
			prev, have = e, !e.EndSequence
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].lo < out[j].lo })
	return out, nil
}

// goTable reads a Go binary's own pc-to-line table, for binaries built
// without DWARF (-ldflags=-w).
func goTable(f *elf.File) *gosym.Table {
	pcln, text := f.Section(".gopclntab"), f.Section(".text")
	if pcln == nil || text == nil {
		return nil
	}
	data, err := pcln.Data()
	if err != nil {
		return nil
	}
	t, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr))
	if err != nil {
		return nil
	}
	return t
}

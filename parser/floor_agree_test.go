package parser_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/parser"
)

// TestFloorScannerAgrees holds the floor scanner (floor_test.go) to the
// parser on the real-shaped fixture traces: for every call whose line
// holds it whole, the same name, return value, errno and returned fd's
// path, and at every argument position model.ArgPositions names, the same
// number, -y path, string and st_size. A floor that skipped any of that
// would flatter itself.
func TestFloorScannerAgrees(t *testing.T) {
	for _, name := range realShapedFixtures(t) {
		t.Run(filepath.Base(filepath.Dir(name)), func(t *testing.T) {
			type rec struct {
				floorEvent
				name string
			}
			fl := newFloorScanner()
			got := map[int]rec{}
			fh, err := os.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			if err := fl.scan(fh, func(ev *floorEvent) { got[ev.line] = rec{*ev, string(ev.name)} }); err != nil {
				t.Fatal(err)
			}
			s, err := parser.Open(name, parser.Options{DecodePositions: model.ArgPositions})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			compared, args := 0, 0
			for {
				ev, err := s.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if ev.Kind != parser.KindSyscall || ev.EndLine != ev.Pos.Line {
					continue
				}
				g, ok := got[ev.Pos.Line]
				if !ok || !g.finished {
					t.Errorf("line %d: %s: the floor scanner kept no finished call", ev.Pos.Line, ev.Name)
					continue
				}
				compared++
				if g.name != ev.Name || g.retKnown != ev.RetKnown || ev.RetKnown && g.ret != ev.Ret ||
					fl.names[g.errno] != ev.Errno || fl.names[g.retAnno] != ev.RetAnno {
					t.Errorf("line %d: floor %s = %d (%v) %q <%s>, parser %s = %d (%v) %q <%s>", ev.Pos.Line,
						g.name, g.ret, g.retKnown, fl.names[g.errno], fl.names[g.retAnno],
						ev.Name, ev.Ret, ev.RetKnown, ev.Errno, ev.RetAnno)
				}
				want := model.ArgPositions(ev.Name)
				for p := range ev.Args {
					v := &ev.Args[p]
					if want&(1<<uint(p)) == 0 || v.Kind == parser.ValSkipped {
						continue
					}
					if p >= g.nargs {
						t.Errorf("line %d: %s: the floor scanner stopped before argument %d", ev.Pos.Line, ev.Name, p)
						break
					}
					a := g.args[p]
					args++
					if n, ok := v.Int(); ok && v.Kind == parser.ValNumber && (!a.isNum || a.num != n) {
						t.Errorf("line %d: %s argument %d: floor %d (%v), parser %d", ev.Pos.Line, ev.Name, p, a.num, a.isNum, n)
					}
					if v.HasAnno && (!a.hasPath || fl.names[a.path] != v.Anno) {
						t.Errorf("line %d: %s argument %d: floor path %q, parser %q", ev.Pos.Line, ev.Name, p, fl.names[a.path], v.Anno)
					}
					if v.Kind == parser.ValString && v.HasStr && (!a.hasPath || fl.names[a.path] != v.Str) {
						t.Errorf("line %d: %s argument %d: floor string %q, parser %q", ev.Pos.Line, ev.Name, p, fl.names[a.path], v.Str)
					}
					if size := v.Field("st_size"); size.Kind == parser.ValNumber {
						n, _ := size.Int()
						if !a.hasSize || a.size != n {
							t.Errorf("line %d: %s argument %d: floor st_size %d (%v), parser %d", ev.Pos.Line, ev.Name, p, a.size, a.hasSize, n)
						}
					}
				}
			}
			if compared == 0 || args == 0 {
				t.Fatalf("compared %d calls and %d arguments: nothing to hold the floor to", compared, args)
			}
			t.Logf("%d calls, %d arguments agree", compared, args)
		})
	}
}

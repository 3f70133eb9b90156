package model

import (
	"reflect"
	"testing"
)

// TestCrashFirstIsCrashsFirst: CrashFirst stops early but must pick the
// very state a scan of Crash's list picks, for every name at the end of
// every fixture under every model, and for a state that no name has.
func TestCrashFirstIsCrashsFirst(t *testing.T) {
	wants := map[string]func(PathState) bool{"none": func(PathState) bool { return false }}
	for _, o := range []Outcome{Missing, Initial, Latest, Earlier, Empty, Torn, Zeros} {
		wants[string(o)] = func(s PathState) bool { return s.Outcome == o }
	}
	wants["not missing"] = func(s PathState) bool { return s.Outcome != Missing }
	wants["another inode"] = func(s PathState) bool { return s.Inode > 1 }
	compared, stoppedEarly := 0, 0
	for _, in := range fixtureInputs(t) {
		for _, p := range testModels() {
			s, err := in.open()
			if err != nil {
				t.Fatal(err)
			}
			opt := in.options(p)
			m := New(opt)
			for {
				ev, err := s.Next()
				if err != nil {
					break
				}
				m.Apply(ev)
			}
			s.Close()
			for path := range m.Names() {
				for _, max := range []int{3, 256} {
					all := m.Crash(path, max)
					for name, want := range wants {
						var first PathState
						found := false
						at := 0
						for i, st := range all.States {
							if want(st) {
								first, found, at = st, true, i
								break
							}
						}
						got, ok := m.CrashFirst(path, max, want)
						if ok != found || !reflect.DeepEqual(got, first) {
							t.Errorf("%s under %s, %s (max %d), first %s: CrashFirst gives %v %+v, Crash's list %v %+v",
								in.name, p, path, max, name, ok, got, found, first)
						}
						compared++
						if found && at < len(all.States)-1 {
							stoppedEarly++
						}
					}
				}
			}
		}
	}
	if compared == 0 || stoppedEarly == 0 {
		t.Fatalf("compared %d picks, %d of them before the last state: the test exercised nothing", compared, stoppedEarly)
	}
}

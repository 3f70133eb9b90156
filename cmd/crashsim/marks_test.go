package main

import (
	"encoding/hex"
	"testing"

	"github.com/crashsim/crashsim/source"
)

// TestMarkOn reads a mark as strace prints it plainly and with -xx.
func TestMarkOn(t *testing.T) {
	payload := hex.EncodeToString([]byte("open\x00/app/save.py\x003\x00<module>\x00/d/x.txt\x00"))
	plain := `1234 openat(AT_FDCWD, "` + source.MarkPrefix + payload + `", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)`
	xx := `1234 1700000000.000001 openat(AT_FDCWD</d>, "` + hexEscape(source.MarkPrefix+payload) + `", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)`
	for _, line := range []string{plain, xx} {
		m, ok := markOn([]byte(line))
		if !ok {
			t.Errorf("markOn(%.60q...) found no mark", line)
			continue
		}
		if m.Loc.File != "/app/save.py" || m.Loc.Line != 3 || m.Target != "/d/x.txt" || m.Op != "open" {
			t.Errorf("markOn = %+v", m)
		}
	}
	if _, ok := markOn([]byte(`1 openat(AT_FDCWD, "/proc/self/status", O_RDONLY) = 3`)); ok {
		t.Error("markOn found a mark in a plain open")
	}
}

func TestIsPython(t *testing.T) {
	for cmd, want := range map[string]bool{"python3": true, "/usr/bin/python3.11": true, "python": true, "pythonista": false, "./save.py": false, "sh": false} {
		if got := isPython(cmd); got != want {
			t.Errorf("isPython(%q) = %v, want %v", cmd, got, want)
		}
	}
}

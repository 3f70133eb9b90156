package model

import "testing"

// TestModeType reads a stat's file type as strace prints the mode: by
// name, with flags and permissions after it, or as -X raw's octal number
// (with -X verbose the number comes first and the names in a comment).
func TestModeType(t *testing.T) {
	for _, tc := range []struct {
		mode string
		bits uint64
		ok   bool
	}{
		{"S_IFDIR|S_ISVTX|0777", modeDir, true},
		{"S_IFREG|0644", 0o100000, true},
		{"S_IFCHR|0620", modeChr, true},
		{"S_IFIFO|0600", modeFifo, true},
		{"S_IFSOCK|0777", modeSock, true},
		{"041777", modeDir, true},
		{"0100644", 0o100000, true},
		{"020620", modeChr, true},
		{"", 0, false},
		{"0x7ffd10", 0, false},
		{"0", 0, false},
	} {
		bits, ok := modeType(tc.mode)
		if bits != tc.bits || ok != tc.ok {
			t.Errorf("modeType(%q) = %#o, %v; want %#o, %v", tc.mode, bits, ok, tc.bits, tc.ok)
		}
	}
	if !modeIsDir("041777") || modeIsDir("0100644") || modeIsDir("0x41ff") {
		t.Error("modeIsDir: 041777 is a directory, 0100644 and an address are not")
	}
}

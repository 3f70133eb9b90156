package model

import "testing"

// TestKindOfAnno: the names the kernel gives files on no mounted
// filesystem are pseudo files, as strace prints them; a path that only
// looks like one, or that is not marked deleted where the kernel always
// marks it, is a file.
func TestKindOfAnno(t *testing.T) {
	for _, c := range []struct {
		anno    string
		deleted bool
		want    HandleKind
	}{
		{"/memfd:shared-memory-region", true, HandlePseudo},
		{"/memfd:", true, HandlePseudo},
		{"/memfd:shared-memory-region", false, HandleFile},
		{"/SYSV0000162e", true, HandlePseudo},
		{"/SYSV00000000", true, HandlePseudo},
		{"/SYSV00000000", false, HandleFile},
		{"/SYSV0000162", true, HandleFile},
		{"/SYSV0000162E", true, HandleFile},
		{"/SYSVfile.txt", true, HandleFile},
		{"/dmabuf:", false, HandlePseudo},
		{"/dmabuf:camera", false, HandlePseudo},
		{"/data/memfd:x", true, HandleFile},
		{"/dev/shm/ring", true, HandleFile},
		{"/dev/null", false, HandlePseudo},
		{"anon_inode:[eventfd]", false, HandlePseudo},
		{"socket:[22556991]", false, HandlePseudo},
		{"/tmp/.org.chromium.Chromium.XvUro0", true, HandleFile},
	} {
		if got := kindOfAnno(c.anno, c.deleted); got != c.want {
			t.Errorf("kindOfAnno(%q, deleted %v) = %v, want %v", c.anno, c.deleted, got, c.want)
		}
	}
	// A path a program names is a path.
	if isPseudoPath("/memfd:x") {
		t.Errorf("isPseudoPath(/memfd:x): a program's path is a file")
	}
}

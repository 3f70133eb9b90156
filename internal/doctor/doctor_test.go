package doctor

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// machine is a pretend machine: the programs in path, what they print,
// the device files that exist and the capabilities held.
func machine(path map[string]string, exists map[string]bool, capEff string) Env {
	return Env{
		LookPath: func(name string) (string, error) {
			if _, ok := path[name]; ok {
				return "/usr/bin/" + name, nil
			}
			return "", errors.New("not found")
		},
		Output: func(name string, args ...string) (string, error) {
			out, ok := path[strings.TrimPrefix(name, "/usr/bin/")]
			if !ok {
				return "", errors.New("not found")
			}
			return out, nil
		},
		Exists: func(p string) bool { return exists[p] },
		Status: func() (string, error) { return "Name:\tcrashsim\nCapEff:\t" + capEff + "\n", nil },
	}
}

// verdicts is each item's name and whether it is OK. Every item says what
// it is for, and a missing one how to get it.
func verdicts(t *testing.T, items []Item) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, it := range items {
		out[it.Name] = it.OK
		if it.Enables == "" || !it.OK && it.Fix == "" {
			t.Errorf("%s: does not say what it is for (%q) or how to get it (%q)", it.Name, it.Enables, it.Fix)
		}
	}
	return out
}

func TestCheck(t *testing.T) {
	// An old strace built without an unwinder, no root, no FUSE.
	old := machine(map[string]string{
		"strace":    "strace -- version 5.10\nCopyright (c) 1991-2020 The strace developers <https://strace.io>.\nOptional features enabled: m32-mpers mx32-mpers\n",
		"mkfs.ext4": "",
		"python3":   "Python 3.12.3\n",
		"chromium":  "",
		"go":        "",
	}, map[string]bool{"/dev/loop-control": true}, "0000000000000000")
	got := verdicts(t, Check(old))
	want := map[string]bool{
		"strace": true, "strace -k (stacks)": false, "strace --seccomp-bpf": true, "strace --kill-on-exit": false,
		"CAP_SYS_ADMIN (root)": false, "loop devices": true, "FUSE": false,
		"mkfs.ext4": true, "mkfs.xfs": false, "mkfs.btrfs": false,
		"go": true, "cc": false, "python3": true, "headless Chromium": true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("old strace, no root (-want +got):\n%s", diff)
	}
	for _, it := range Check(old) {
		switch it.Name {
		case "strace":
			if it.Have != "/usr/bin/strace, version 5.10" {
				t.Errorf("strace: have %q", it.Have)
			}
		case "python3":
			if it.Have != "/usr/bin/python3, Python 3.12.3" {
				t.Errorf("python3: have %q", it.Have)
			}
		}
	}

	// A current strace with libdw, as root; no strace at all.
	root := machine(map[string]string{
		"strace": "strace -- version 6.8\nOptional features enabled: stack-trace=libdw stack-demangle m32-mpers\n",
	}, nil, "000001ffffffffff")
	got = verdicts(t, Check(root))
	for _, name := range []string{"strace", "strace -k (stacks)", "strace --seccomp-bpf", "strace --kill-on-exit", "CAP_SYS_ADMIN (root)"} {
		if !got[name] {
			t.Errorf("strace 6.8 with libdw, as root: %s missing", name)
		}
	}
	none := Check(machine(nil, nil, "0"))
	if none[0].Name != "strace" || none[0].OK || !strings.Contains(none[0].Fix, "apt-get install strace") {
		t.Errorf("no strace: %+v", none[0])
	}
	for _, it := range none {
		if strings.HasPrefix(it.Name, "strace ") {
			t.Errorf("no strace, yet its feature %q is judged", it.Name)
		}
	}
}

// TestMemoryItem: the limit crashsim set, with its share of what it came
// from; no limit is a no with a way to get one.
func TestMemoryItem(t *testing.T) {
	for _, c := range []struct {
		m    MemoryLimit
		ok   bool
		have string
	}{
		{MemoryLimit{Limit: 120 << 20, Of: 150 << 20, From: "the cgroup's limit"}, true, "120 MiB, 80% of the cgroup's limit (150 MiB)"},
		{MemoryLimit{Limit: 6 << 30, Of: 8 << 30, From: "the machine's memory"}, true, "6.0 GiB, 75% of the machine's memory (8.0 GiB)"},
		{MemoryLimit{Limit: 2 << 30, From: "GOMEMLIMIT"}, true, "2.0 GiB, from GOMEMLIMIT"},
		{MemoryLimit{From: "none: AUTOMEMLIMIT=off"}, false, "none: AUTOMEMLIMIT=off"},
	} {
		env := machine(nil, nil, "0")
		env.Memory = func() MemoryLimit { return c.m }
		items := Check(env)
		it := items[len(items)-1]
		if it.Name != "a memory limit for Go's collector" || it.OK != c.ok || it.Have != c.have {
			t.Errorf("%+v: got %q ok=%v have %q, want ok=%v have %q", c.m, it.Name, it.OK, it.Have, c.ok, c.have)
		}
		verdicts(t, items)
	}
	if items := Check(machine(nil, nil, "0")); items[len(items)-1].Name == "a memory limit for Go's collector" {
		t.Error("a machine that says nothing of memory got a memory item")
	}
}

// TestLeftoversItem: what killed runs left is a no, listed, with how it
// goes; nothing left is a yes; a machine that says nothing gets no item.
func TestLeftoversItem(t *testing.T) {
	env := machine(nil, nil, "0")
	env.Leftovers = func() []string {
		return []string{"/tmp/crashsim-oracle-1 (pid 42)", "/sys/fs/cgroup/crashsim-42-1-2-0123456789abcdef (pid 42)"}
	}
	items := Check(env)
	verdicts(t, items)
	it := items[len(items)-1]
	if it.OK || it.Have != "/tmp/crashsim-oracle-1 (pid 42), /sys/fs/cgroup/crashsim-42-1-2-0123456789abcdef (pid 42)" || !strings.Contains(it.Fix, "removes them") {
		t.Errorf("leftovers: %+v", it)
	}
	env.Leftovers = func() []string { return nil }
	if it := Check(env)[len(items)-1]; !it.OK || it.Have != "none found" {
		t.Errorf("no leftovers: %+v", it)
	}
	if items := Check(machine(nil, nil, "0")); items[len(items)-1].Name == it.Name {
		t.Error("a machine that says nothing of leftovers got the item")
	}
}

package check

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/internal/syscalls"
	"github.com/crashsim/crashsim/parser"
	"github.com/google/go-cmp/cmp"
)

// runWithArch checks the trace at path, read with parser.Options.Arch
// arch, with the default options; the caller closes the result.
func runWithArch(t *testing.T, path string, arch parser.Arch) *Result {
	t.Helper()
	s, err := parser.Open(path, parser.Options{Arch: arch})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := Run(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// archRun checks a trace read with parser.Options.Arch arch and returns
// its blind spots (ID and message) and findings ("rule path").
func archRun(t *testing.T, trace string, arch parser.Arch) (blind, msgs, findings []string) {
	t.Helper()
	res := runWithArch(t, trace, arch)
	defer res.Close()
	for _, w := range res.Warnings {
		blind = append(blind, w.ID)
		msgs = append(msgs, w.Message)
	}
	for f, err := range res.Findings() {
		if err != nil {
			t.Fatal(err)
		}
		if k := f.Rule.ID + " " + f.Path; !slices.Contains(findings, k) {
			findings = append(findings, k)
		}
	}
	sort.Strings(findings)
	return blind, msgs, findings
}

// TestArchOfNumericFlags: the hand-made arm64 trace gives its findings
// when read as arm64's; read without an architecture, the numbers whose
// meaning depends on it make a blind spot instead of a quiet pass.
func TestArchOfNumericFlags(t *testing.T) {
	const trace = "../fixtures/arch/arm64-raw.strace"
	blind, _, findings := archRun(t, trace, syscalls.ARM64)
	want := []string{
		"data-not-synced /srv/app/data.bin",
		"dir-sync-before-data /srv/app/data.bin",
		"direct-io-not-flushed /srv/app/data.bin",
		"rename-before-sync /srv/app/data.bin",
	}
	if diff := cmp.Diff(want, findings); diff != "" || len(blind) > 0 {
		t.Errorf("as arm64: blind spots %v, findings (-want +got):\n%s", blind, diff)
	}

	blind, msgs, findings := archRun(t, trace, syscalls.Unknown)
	if diff := cmp.Diff([]string{BlindUnknownArch}, blind); diff != "" {
		t.Errorf("no architecture: blind spots (-want +got):\n%s", diff)
	}
	if len(msgs) > 0 && !strings.Contains(msgs[0], "openat has open flags printed as a number (0x90241)") {
		t.Errorf("message: %s", msgs[0])
	}
	if slices.Contains(findings, "direct-io-not-flushed /srv/app/data.bin") {
		t.Errorf("no architecture: read as arm64's anyway: %v", findings)
	}

	// Read as amd64 on purpose (--arch amd64): no blind spot.
	if blind, _, _ := archRun(t, trace, syscalls.AMD64); len(blind) > 0 {
		t.Errorf("as amd64: blind spots %v", blind)
	}
}

// TestArchShownLater: numbers read before the trace showed its
// architecture are a blind spot only when that architecture reads them
// otherwise than amd64.
func TestArchShownLater(t *testing.T) {
	dir := t.TempDir()
	const open = "openat(AT_FDCWD, \"/srv/d.bin\", 0x10241, 0644) = 3\nwrite(3, \"x\", 1) = 1\nclose(3) = 0\n"
	for _, tc := range []struct {
		name, tail string
		want       []string
		msg        string
	}{
		{"x86 shown later", "arch_prctl(ARCH_SET_FS, 0x7f) = 0\nnewfstatat(AT_FDCWD, \"/srv\", {st_mode=S_IFDIR|0755, st_size=4096}, 0) = 0\n", nil, ""},
		{"arm64 shown later", "[ Process PID=1 runs in AArch64 mode. ]\n", []string{BlindUnknownArch}, "before the trace showed it was recorded on arm64"},
		{"never shown", "", []string{BlindUnknownArch}, "does not show which machine recorded it"},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
		if err := os.WriteFile(p, []byte(open+tc.tail+"exit_group(0) = ?\n+++ exited with 0 +++\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		blind, msgs, _ := archRun(t, p, syscalls.Unknown)
		if diff := cmp.Diff(tc.want, blind); diff != "" {
			t.Errorf("%s: blind spots (-want +got):\n%s", tc.name, diff)
			continue
		}
		if tc.msg != "" && !strings.Contains(msgs[0], tc.msg) {
			t.Errorf("%s: %s", tc.name, msgs[0])
		}
	}
}

// TestI386Traces: a 32-bit program run by a 64-bit shell (recorded by
// fixtures/arch/record-i386.sh): its i386 calls (_llseek, set_thread_area)
// and, with -e quiet=none, the line strace prints when it turns 32-bit,
// after the pid and the time, read like any other trace, with the same
// findings in every recording and no blind spot (i386 and x86-64 share
// their flag values).
func TestI386Traces(t *testing.T) {
	traces, err := filepath.Glob("../fixtures/arch/i386/*.strace")
	if err != nil || len(traces) != 3 {
		t.Fatalf("i386 traces: %v %v", traces, err)
	}
	want := []string{
		"data-not-synced /tmp/crashsim-fixtures/i386-save/settings.ini",
		"dir-sync-before-data /tmp/crashsim-fixtures/i386-save/settings.ini",
		"rename-before-sync /tmp/crashsim-fixtures/i386-save/settings.ini",
	}
	for _, tr := range traces {
		blind, _, findings := archRun(t, tr, syscalls.Unknown)
		if diff := cmp.Diff(want, findings); diff != "" || len(blind) > 0 {
			t.Errorf("%s: blind spots %v, findings (-want +got):\n%s", tr, blind, diff)
		}
	}
}

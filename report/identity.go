package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/crashsim/crashsim/check"
)

// Fingerprint is a finding's identity across runs: its rule, the file's
// path relative to the root it lies in, and the shape of the syscalls that
// explain it. The call site in the program's source is left out: whether
// it is known depends on how the trace was recorded (--stack), not on the
// finding, and a baseline made without stacks must still know the
// findings of a run with them, and the other way round. So are pids,
// trace lines, absolute checkout paths and the temp names of related
// events, which all vary between runs of the same program. The recipe is
// wire.FingerprintVersion.
func Fingerprint(f *check.Finding, opt Options) string {
	sum := fingerprintSum(f, opt)
	return hex.EncodeToString(sum[:])
}

// fingerprintSum is the fingerprint's bytes, before they are spelled in hex.
func fingerprintSum(f *check.Finding, opt Options) [8]byte {
	var b strings.Builder
	b.WriteString(f.Rule.ID)
	b.WriteByte(0)
	b.WriteString("path:")
	b.WriteString(opt.RelPath(f.Path))
	b.WriteByte(0)
	b.WriteString(shape(f))
	if f.StateIndex > 0 {
		// An explore finding is one rejected state: states of the same
		// file and calls are told apart by their place in explore's
		// deterministic order, which is the same on every machine.
		fmt.Fprintf(&b, "\x00state:%d", f.StateIndex)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return [8]byte(sum[:8])
}

// shape is the sequence of syscalls that explain a finding, without their
// arguments: "write,fsync,rename".
func shape(f *check.Finding) string {
	names := make([]string, 0, len(f.Related))
	for _, r := range f.Related {
		if n := len(names); n > 0 && names[n-1] == r.Syscall {
			continue
		}
		names = append(names, r.Syscall)
	}
	return strings.Join(names, ",")
}

// RelPath names a traced file relative to the first root that holds it,
// so that the same program run in two checkouts names it the same. A path
// below no root is returned as it is.
func (o Options) RelPath(p string) string {
	for _, r := range o.Roots {
		if rel, ok := below(r, p); ok {
			return rel
		}
	}
	return filepath.ToSlash(p)
}

// relSource names a source file relative to the source root when below it.
func (o Options) relSource(p string) string {
	if o.SrcRoot != "" {
		if rel, ok := below(o.SrcRoot, p); ok {
			return rel
		}
	}
	return filepath.ToSlash(p)
}

// below returns p relative to dir when p is dir or lies below it.
func below(dir, p string) (string, bool) {
	if dir == "" || !filepath.IsAbs(p) {
		return "", false
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

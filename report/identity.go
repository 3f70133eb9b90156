package report

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strconv"
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
	// The bytes are put together on the stack when they fit: a finding's
	// fingerprint is worked out for every finding of a report.
	var room [256]byte
	b := append(room[:0], f.Rule.ID...)
	b = append(b, 0)
	b = append(b, "path:"...)
	b = append(b, opt.RelPath(f.Path)...)
	b = append(b, 0)
	b = appendShape(b, f)
	if f.StateIndex > 0 {
		// An explore finding is one rejected state: states of the same
		// file and calls are told apart by their place in explore's
		// deterministic order, which is the same on every machine.
		b = append(b, "\x00state:"...)
		b = strconv.AppendInt(b, int64(f.StateIndex), 10)
	}
	sum := sha256.Sum256(b)
	return [8]byte(sum[:8])
}

// appendShape appends the sequence of syscalls that explain a finding,
// without their arguments: "write,fsync,rename" (a syscall that repeats
// the one before it is left out).
func appendShape(b []byte, f *check.Finding) []byte {
	last := ""
	for i, r := range f.Related {
		if i > 0 && r.Syscall == last {
			continue
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, r.Syscall...)
		last = r.Syscall
	}
	return b
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

package parser

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/crashsim/crashsim/internal/inputfile"
	"github.com/crashsim/crashsim/internal/textesc"
)

// Digest is the identity of a trace's bytes: "sha256:" and the hex of
// the SHA-256 of the file; of an strace -ff set, of one line per member
// in pid order, its pid and the SHA-256 of its bytes. It streams. A
// trace that is not a regular file (a pipe, which is read once) has
// none: it is an error.
func Digest(path string) (string, error) {
	_, err := os.Stat(path)
	if err == nil {
		sum, err := digestFile(path, inputfile.Named)
		if err != nil {
			return "", err
		}
		return "sha256:" + hex.EncodeToString(sum), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	members, err := ffMembers(path)
	if err != nil {
		return "", err
	}
	if len(members) == 0 {
		return "", fmt.Errorf("cannot read trace %s: no such file (nor strace -ff files %s.PID)", textesc.Escape(path), textesc.Escape(path))
	}
	h := sha256.New()
	for _, m := range members {
		sum, err := digestFile(m.path, inputfile.Found)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%d %x\n", m.pid, sum)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// digestFile is the SHA-256 of a regular file's bytes.
func digestFile(name string, o inputfile.Origin) ([]byte, error) {
	f, err := inputfile.Open(name, o)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: a trace read from a pipe has no identity to compare", textesc.Escape(name))
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

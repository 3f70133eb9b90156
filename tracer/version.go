package tracer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/crashsim/crashsim/internal/replacefile"
)

// Version is the version of an installed strace, as `strace -V` prints it.
// The zero Version means unknown; it is treated as new enough for every
// feature, so that strace itself reports what it does not understand.
type Version struct {
	Major, Minor int
}

func (v Version) String() string {
	if v.IsZero() {
		return "unknown"
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

// IsZero reports whether the version is unknown.
func (v Version) IsZero() bool { return v == Version{} }

// AtLeast reports whether v is w or newer. An unknown v is.
func (v Version) AtLeast(w Version) bool {
	if v.IsZero() {
		return true
	}
	if v.Major != w.Major {
		return v.Major > w.Major
	}
	return v.Minor >= w.Minor
}

// versionRx matches the first line of `strace -V`: "strace -- version 6.1"
// (and "strace -- version 5.10.0.2-4a5b" from a distribution build).
var versionRx = regexp.MustCompile(`(?m)^strace -- version (\d+)\.(\d+)`)

// ParseVersion reads the output of `strace -V`.
func ParseVersion(out string) (Version, error) {
	m := versionRx.FindStringSubmatch(out)
	if m == nil {
		return Version{}, fmt.Errorf("parse strace -V output %q: no \"strace -- version N.N\" line", firstLine(out))
	}
	major, err1 := strconv.Atoi(m[1])
	minor, err2 := strconv.Atoi(m[2])
	if err := errors.Join(err1, err2); err != nil {
		return Version{}, fmt.Errorf("parse strace -V output %q: %w", firstLine(out), err)
	}
	return Version{Major: major, Minor: minor}, nil
}

// DetectVersion runs `STRACE -V`.
func DetectVersion(ctx context.Context, strace string) (Version, error) {
	out, err := exec.CommandContext(ctx, strace, "-V").Output()
	if err != nil {
		return Version{}, fmt.Errorf("%s -V: %w", strace, err)
	}
	return ParseVersion(string(out))
}

// cachedVersion is DetectVersion remembered across runs: `strace -V` costs
// a fork and an exec (a few milliseconds) on every trace, for an answer that
// changes only when the strace binary does. The cache is one small file
// under the user's cache directory, keyed by the binary's path, size,
// modification time and inode; any trouble with it falls back to running
// strace -V.
func cachedVersion(ctx context.Context, strace string) (Version, error) {
	key, file := versionCacheKey(strace)
	if key != "" {
		if b, err := os.ReadFile(file); err == nil {
			if k, line, ok := strings.Cut(string(b), "\n"); ok && k == key {
				if v, err := ParseVersion(line); err == nil {
					return v, nil
				}
			}
		}
	}
	v, err := DetectVersion(ctx, strace)
	if err != nil || key == "" {
		return v, err
	}
	if os.MkdirAll(filepath.Dir(file), 0o755) == nil {
		_ = replacefile.Write(file, func(f *os.File) error {
			_, err := fmt.Fprintf(f, "%s\nstrace -- version %d.%d\n", key, v.Major, v.Minor)
			return err
		}, replacefile.Options{})
	}
	return v, nil
}

// versionCacheKey names the strace binary for the version cache, and the
// cache file; "" when either cannot be known.
func versionCacheKey(strace string) (key, file string) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", ""
	}
	fi, err := os.Stat(strace)
	if err != nil {
		return "", ""
	}
	var ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = st.Ino
	}
	return fmt.Sprintf("%s %d %d %d", strconv.Quote(strace), fi.Size(), fi.ModTime().UnixNano(), ino), filepath.Join(dir, "crashsim", "strace-version")
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}

package tracer

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Mount is one mounted filesystem: where it is and its type.
type Mount struct {
	Dir    string // the mount point, as the kernel names it
	FSType string // "ext4", "tmpfs", ...
}

// MountinfoPath is where the kernel lists this process's mounts.
const MountinfoPath = "/proc/self/mountinfo"

// ReadMounts reads a mountinfo file (proc(5)): one mount a line, the mount
// point in field 5, the filesystem type after the " - " separator. A later
// line for the same mount point (a mount on top of another) replaces the
// earlier one.
func ReadMounts(name string) ([]Mount, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseMounts(f, name)
}

func parseMounts(r io.Reader, name string) ([]Mount, error) {
	var out []Mount
	at := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		fields := strings.Fields(line)
		sep := -1
		for i := 6; i < len(fields); i++ {
			if fields[i] == "-" {
				sep = i
				break
			}
		}
		if len(fields) < 5 || sep < 0 || sep+1 >= len(fields) {
			return nil, fmt.Errorf("%s:%d: not a mountinfo line (want ID PARENT MAJ:MIN ROOT MOUNTPOINT ... - FSTYPE ...)", name, n)
		}
		m := Mount{Dir: UnescapeMount(fields[4]), FSType: fields[sep+1]}
		if i, ok := at[m.Dir]; ok {
			out[i] = m
			continue
		}
		at[m.Dir] = len(out)
		out = append(out, m)
	}
	return out, sc.Err()
}

// UnescapeMount decodes the \NNN octal escapes the kernel writes for
// spaces, tabs, newlines and backslashes in mount points (mountinfo and
// /proc/mounts alike).
func UnescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

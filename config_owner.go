package crashsim

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"syscall"

	"github.com/crashsim/crashsim/internal/textesc"
)

// checkOwner says whether a config crashsim found may be read: the open
// file f, and name itself when it is a symbolic link, must belong to the
// user crashsim runs as or to root (see LoadConfig).
func checkOwner(name string, f *os.File) error {
	if fi, err := os.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if uid, ok := ownerOf(fi); ok && !trustedOwner(uid) {
			return untrusted(name, "it is a symbolic link made by", uid)
		}
	}
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if uid, ok := ownerOf(fi); ok && !trustedOwner(uid) {
		return untrusted(name, "it belongs to", uid)
	}
	return nil
}

func trustedOwner(uid int) bool { return uid == os.Geteuid() || uid == 0 }

func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

func untrusted(name, what string, uid int) error {
	trusted := "root"
	if me := os.Geteuid(); me != 0 {
		trusted = "you (" + userName(me) + ") or root"
	}
	return fmt.Errorf("refusing config %s: %s %s, not %s, and a config decides which findings are reported; read it anyway by naming it (--config %s), or remove it",
		textesc.Escape(name), what, userName(uid), trusted, textesc.Escape(name))
}

// userName is "uid 1000 (alice)", or "uid 1000" when the name is unknown.
func userName(uid int) string {
	s := "uid " + strconv.Itoa(uid)
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		s += " (" + u.Username + ")"
	}
	return s
}

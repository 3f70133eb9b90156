package crashsim

import (
	"runtime/debug"
	"strings"

	"github.com/crashsim/crashsim/report/wire"
)

// Tool says which crashsim this is, for the reports it writes, from the
// build information the Go toolchain stamps into the binary: the module
// version ("v1.2.3", a pseudo-version from the VCS, or "(devel)") and the
// VCS revision ("+dirty" when the tree had changes).
func Tool() wire.Tool {
	t := wire.Tool{Name: "crashsim", Version: "(devel)"}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		if v := bi.Main.Version; v != "" {
			t.Version = v
		}
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				t.Revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified && t.Revision != "" {
			t.Revision += "+dirty"
		}
	}
	t.SemVer = semver(t.Version)
	return t
}

// semver turns a Go module version into SARIF's semanticVersion: no "v",
// and a pre-release for a build that has no version.
func semver(v string) string {
	if !strings.HasPrefix(v, "v") {
		return "0.0.0-devel"
	}
	return strings.TrimPrefix(v, "v")
}

package crashsim

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/model"
)

// FuzzConfig: whatever a config holds, reading it never panics; a
// mistake is a usage error of one short line, escaped; and what is read
// is what the rest of crashsim can use (known models, severity and
// rules, absolute roots, globs that match).
func FuzzConfig(f *testing.F) {
	for _, seed := range []string{
		"",
		"roots = [\"data\", \"/abs\"]\nmodel = [\"xfs\", \"btrfs\", \"ext4\"]\nfail_on = \"info\"\nignore = [\"**/*.tmp\"]\n",
		"[[suppress]]\nrule = \"fsync-before-write\"\npath = \"**/config.txt\"\nreason = \"known\"\n",
		"[[suppress]]\nrule = \"data-not-synced\"\n",
		"model = [\"zfs\"]\n",
		"ignore = [\"[abc\"]\n",
		"fail-on = \"never\"\n",
		"model = = 1\n",
		"a.b.c.d = 1\n",
		"suppress = [{rule = \"data-not-synced\", reason = \"x\"}]\n",
		"[suppress]\nrule = 1\n",
		"roots = \"notalist\"\n",
		"model = [\"\\u001b[2J\"]\n",
		"ignore = ['''\nmulti''']\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := parseConfig("fuzz.toml", raw)
		if err != nil {
			var ue *UsageError
			msg := err.Error()
			if !errors.As(err, &ue) {
				t.Fatalf("error %q is not a usage error", msg)
			}
			if !strings.HasPrefix(msg, "fuzz.toml:") || len(msg) > 600 || strings.ContainsAny(msg, "\n\r\x1b\x00") {
				t.Fatalf("error of %d bytes is not one short line naming the file: %q", len(msg), msg)
			}
			return
		}
		for _, r := range c.Roots {
			if !filepath.IsAbs(r) {
				t.Errorf("root %q is not absolute", r)
			}
		}
		for _, m := range c.Model {
			if _, err := model.ParsePersistence(m); err != nil {
				t.Errorf("model %q accepted: %v", m, err)
			}
		}
		if c.FailOn != "" {
			if _, err := check.ParseSeverity(c.FailOn); err != nil {
				t.Errorf("fail_on %q accepted: %v", c.FailOn, err)
			}
		}
		for _, g := range c.Ignore {
			check.MatchGlob(g, "/a/b", "b")
		}
		for _, s := range c.Suppress {
			r, ok := check.Lookup(s.Rule)
			if !ok || s.Reason == "" {
				t.Errorf("suppression %+v accepted", s)
				continue
			}
			c.Filter().byRule().covers(r.ID, "/a/b", "b")
		}
	})
}

package crashsim

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crashsim/crashsim/model"
)

// TestReadConfig: every model and rule crashsim knows is accepted, and a
// mistake is a usage error naming the file and line.
func TestReadConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c, err := ReadConfig(write("ok.toml", "roots = [\"data\", \"/abs\"]\nmodel = [\"xfs\", \"btrfs\", \"ext4\"]\nfail_on = \"info\"\nignore = [\"**/*.tmp\"]\n[[suppress]]\nrule = \"checker-failed\"\nreason = \"known\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []model.Persistence{model.Xfs, model.Btrfs, model.Ext4}; !slices.Equal(c.Models(), want) {
		t.Errorf("Models() = %v, want %v", c.Models(), want)
	}
	if want := []string{filepath.Join(dir, "data"), "/abs"}; !slices.Equal(c.Roots, want) {
		t.Errorf("Roots = %q, want %q", c.Roots, want)
	}
	if f := c.Filter(); len(f.Suppress) != 1 || f.Ignore[0] != "**/*.tmp" {
		t.Errorf("Filter() = %+v", f)
	}
	for name, tc := range map[string]struct{ text, want string }{
		"model":    {"fail_on = \"error\"\nmodel = [\"zfs\"]\n", `model.toml:2: model: unknown persistence model "zfs" (posix, ext4, xfs or btrfs)`},
		"unknown":  {"model = [\"posix\"]\nmodels = [\"ext4\"]\n", `unknown.toml:2:1: unknown key "models"`},
		"glob":     {"ignore = [\"ok\", \"[bad\"]\n", `glob.toml:1: ignore: bad glob "[bad"`},
		"failon":   {"fail_on = \"often\"\n", `failon.toml:1: fail_on: unknown severity "often"`},
		"norule":   {"[[suppress]]\nrule = \"data-not-sync\"\nreason = \"x\"\n", `norule.toml:2: [[suppress]]: no rule "data-not-sync"`},
		"noreason": {"[[suppress]]\nrule = \"data-not-synced\"\n", `noreason.toml:1: [[suppress]] of data-not-synced needs a reason`},
		"syntax":   {"model = = 1\n", `syntax.toml:1:`},
	} {
		_, err := ReadConfig(write(name+".toml", tc.text))
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want a usage error with %q", name, err, tc.want)
		}
	}
	if _, err := ReadConfig(filepath.Join(dir, "missing.toml")); err == nil {
		t.Error("no error for a missing config")
	}
}

func TestFindConfig(t *testing.T) {
	top := t.TempDir()
	sub := filepath.Join(top, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := FindConfig("", sub); err != nil || p != "" {
		t.Errorf("FindConfig with none = %q, %v", p, err)
	}
	want := filepath.Join(top, "a", ConfigName)
	os.WriteFile(want, nil, 0o644)
	if p, err := FindConfig("", sub); err != nil || p != want {
		t.Errorf("FindConfig = %q, %v, want %q", p, err, want)
	}
	if p, _ := FindConfig("given.toml", sub); p != "given.toml" {
		t.Errorf("FindConfig of a named file = %q", p)
	}
}

package crashsim

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/crashsim/crashsim/check"
	"github.com/crashsim/crashsim/internal/inputfile"
	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/model"
	"github.com/pelletier/go-toml/v2"
)

// ConfigName is the config file FindConfig looks for in a directory and
// each directory above it.
const ConfigName = ".crashsim.toml"

// Config is a .crashsim.toml. Every key is optional. The command line lets
// a flag win over its key, except ignore, whose globs add up with
// --ignore's.
type Config struct {
	Roots    []string   `toml:"roots"`   // made absolute, relative to the file's directory
	Ignore   []string   `toml:"ignore"`  // globs (check.MatchGlob)
	Model    []string   `toml:"model"`   // persistence models (model.ParsePersistence)
	FailOn   string     `toml:"fail_on"` // error, warning, info, never (check.ParseSeverity)
	Suppress []Suppress `toml:"suppress"`

	// File is where it was read from.
	File string `toml:"-"`
	raw  []byte
}

// MaxConfigSize bounds a config file: one a person writes is a few
// hundred bytes, and even 100,000 suppressions fit. A link to /dev/zero
// or to a log of gigabytes is refused before it is read.
const MaxConfigSize = 16 << 20

// FindConfig returns the config file that applies: name when given, else
// ConfigName in dir or the nearest directory above it, else "". A
// ConfigName that is a link to nothing is an error, not a reason to read
// the config of a directory further up.
func FindConfig(name, dir string) (string, error) {
	if name != "" {
		return name, nil
	}
	for {
		p := filepath.Join(dir, ConfigName)
		fi, err := os.Lstat(p)
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
				to, _ := os.Readlink(p)
				return "", usageErrorf("config %s is a symbolic link to %s, which does not exist: fix or remove it (crashsim does not read a config further up in its place)", textesc.Escape(p), textesc.Escape(to))
			}
			return p, nil
		case err == nil:
			return p, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", &UsageError{inputfile.Describe("config", err)}
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", nil
		}
		dir = up
	}
}

// LoadConfig reads the config that applies in dir: the file name when it
// is given (as ReadConfig), else the one FindConfig finds there or above;
// nil when there is none. A config found, not named, is read only when it
// belongs to the user crashsim runs as, or to root: a config decides
// which findings are reported, and one that another user left in a
// directory above (a world-writable /tmp) must not silence them. Git
// refuses a repository another user owns for the same reason
// (safe.directory). Naming the file accepts it.
func LoadConfig(name, dir string) (*Config, error) {
	if name != "" {
		return ReadConfig(name)
	}
	p, err := FindConfig("", dir)
	if err != nil || p == "" {
		return nil, err
	}
	return readConfig(p, inputfile.Found)
}

// ReadConfig reads and checks a config file named on the command line: a
// regular file or a pipe (/dev/stdin), whoever owns it. Every problem is
// a *UsageError naming the file and line; models and rules are checked
// against the lists crashsim has (model.ParsePersistence, check.Lookup).
func ReadConfig(name string) (*Config, error) { return readConfig(name, inputfile.Named) }

func readConfig(name string, o inputfile.Origin) (*Config, error) {
	f, err := inputfile.Open(name, o)
	if err != nil {
		what := "config" // found: its path says which
		if o == inputfile.Named {
			what = "--config"
		}
		return nil, &UsageError{inputfile.Describe(what, err)}
	}
	defer f.Close()
	if o == inputfile.Found {
		if err := checkOwner(name, f); err != nil {
			return nil, &UsageError{err}
		}
	}
	raw, err := inputfile.ReadAll(f, MaxConfigSize)
	if errors.Is(err, inputfile.ErrTooLarge) {
		return nil, &UsageError{fmt.Errorf("config: %w: not a config a person wrote", err)}
	}
	if err != nil {
		return nil, &UsageError{fmt.Errorf("config: %w", err)}
	}
	return parseConfig(name, raw)
}

// parseConfig reads the config file name, which holds raw.
func parseConfig(name string, raw []byte) (*Config, error) {
	c := &Config{File: name, raw: raw}
	if err := c.decode(); err != nil {
		return nil, &UsageError{err}
	}
	if err := c.validate(); err != nil {
		return nil, &UsageError{err}
	}
	dir := filepath.Dir(name)
	if abs, err := filepath.Abs(name); err == nil {
		dir = filepath.Dir(abs)
	}
	for i, r := range c.Roots {
		if !filepath.IsAbs(r) {
			c.Roots[i] = filepath.Join(dir, r)
		}
	}
	return c, nil
}

// maxQuoted bounds a value a message quotes from a config: enough to
// recognise it, never a screenful.
const maxQuoted = 80

func (c *Config) decode() error {
	dec := toml.NewDecoder(bytes.NewReader(c.raw)).DisallowUnknownFields()
	err := dec.Decode(c)
	if err == nil {
		return nil
	}
	name := textesc.Escape(c.File)
	var strict *toml.StrictMissingError
	var de *toml.DecodeError
	switch {
	case errors.As(err, &strict) && len(strict.Errors) > 0:
		e := strict.Errors[0]
		row, col := e.Position()
		return fmt.Errorf("%s:%d:%d: unknown key %s (known: roots, ignore, model, fail_on, [[suppress]] with rule, path, reason)", name, row, col, textesc.Excerpt(strings.Join(e.Key(), "."), maxQuoted))
	case errors.As(err, &de):
		row, col := de.Position()
		return fmt.Errorf("%s:%d:%d: %s", name, row, col, cut(de.Error()))
	}
	return fmt.Errorf("%s: %s", name, cut(err.Error()))
}

// cut keeps a message of the TOML decoder, which may quote the file, to
// one readable line.
func cut(msg string) string {
	if len(msg) <= 2*maxQuoted && !strings.ContainsAny(msg, "\n\r") {
		return msg
	}
	return strings.Trim(textesc.Excerpt(msg, 2*maxQuoted), `"`)
}

// bare is s escaped, or an excerpt of it when it is long.
func bare(s string) string {
	if len(s) > maxQuoted {
		return textesc.Excerpt(s, maxQuoted)
	}
	return textesc.Escape(s)
}

// quoting is the message of err, which quotes value whole (%q), with an
// excerpt of value instead.
func quoting(err error, value string) string {
	return strings.Replace(err.Error(), strconv.Quote(value), textesc.Excerpt(value, maxQuoted), 1)
}

func (c *Config) validate() error {
	name := textesc.Escape(c.File)
	q := func(s string) string { return textesc.Excerpt(s, maxQuoted) }
	for _, g := range c.Ignore {
		if !check.ValidGlob(g) {
			return fmt.Errorf("%s:%d: ignore: bad glob %s (a '[' with no ']'?)", name, c.line(g), q(g))
		}
	}
	for _, m := range c.Model {
		if _, err := model.ParsePersistence(m); err != nil {
			return fmt.Errorf("%s:%d: model: %s", name, c.line(m), quoting(err, m))
		}
	}
	if c.FailOn != "" {
		if _, err := check.ParseSeverity(c.FailOn); err != nil {
			return fmt.Errorf("%s:%d: fail_on: %s", name, c.line(c.FailOn), quoting(err, c.FailOn))
		}
	}
	// The line of each [[suppress]] is found in one pass over the file:
	// a search per entry took 45 s for 20,000 entries.
	var at []int
	if len(c.Suppress) > 0 {
		at = c.headerLines("[[suppress]]")
	}
	for i, s := range c.Suppress {
		line := 1
		if i < len(at) {
			line = at[i]
		}
		switch {
		case s.Rule == "":
			return fmt.Errorf("%s:%d: [[suppress]] needs a rule", name, line)
		case s.Reason == "":
			return fmt.Errorf("%s:%d: [[suppress]] of %s needs a reason: say why a crash there is acceptable", name, line, bare(s.Rule))
		case s.Path != "" && !check.ValidGlob(s.Path):
			return fmt.Errorf("%s:%d: [[suppress]] path: bad glob %s", name, c.line(s.Path), q(s.Path))
		}
		if _, ok := check.Lookup(s.Rule); !ok {
			return fmt.Errorf("%s:%d: [[suppress]]: no rule %s (crashsim rules lists them)", name, c.line(s.Rule), q(s.Rule))
		}
	}
	return nil
}

// Models are the config's persistence models, read (they were checked).
func (c *Config) Models() []model.Persistence {
	var out []model.Persistence
	for _, m := range c.Model {
		p, _ := model.ParsePersistence(m)
		out = append(out, p)
	}
	return out
}

// Filter leaves out the findings the config's ignore globs and
// suppressions cover.
func (c *Config) Filter() Filter { return Filter{Ignore: c.Ignore, Suppress: c.Suppress} }

// line is the first line of the file that holds the quoted value, for
// messages about values (the decoder gives positions only for keys). It
// is asked once, for the one value a message is about.
func (c *Config) line(value string) int {
	n := 1
	for l := range bytes.Lines(c.raw) {
		if bytes.Contains(l, []byte(`"`+value+`"`)) || bytes.Contains(l, []byte(`'`+value+`'`)) {
			return n
		}
		n++
	}
	return 1
}

// headerLines are the numbers of the lines that start with header, in
// order.
func (c *Config) headerLines(header string) []int {
	var at []int
	n := 1
	for l := range bytes.Lines(c.raw) {
		if bytes.HasPrefix(bytes.TrimSpace(l), []byte(header)) {
			at = append(at, n)
		}
		n++
	}
	return at
}

package crashsim

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/crashsim/crashsim/check"
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

// FindConfig returns the config file that applies: name when given, else
// ConfigName in dir or the nearest directory above it, else "".
func FindConfig(name, dir string) (string, error) {
	if name != "" {
		return name, nil
	}
	for {
		p := filepath.Join(dir, ConfigName)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", nil
		}
		dir = up
	}
}

// ReadConfig reads and checks a config file. Every problem is a
// *UsageError naming the file and line; models and rules are checked
// against the lists crashsim has (model.ParsePersistence, check.Lookup).
func ReadConfig(name string) (*Config, error) {
	raw, err := os.ReadFile(name)
	if err != nil {
		return nil, &UsageError{fmt.Errorf("config: %w", err)}
	}
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

func (c *Config) decode() error {
	dec := toml.NewDecoder(bytes.NewReader(c.raw)).DisallowUnknownFields()
	err := dec.Decode(c)
	if err == nil {
		return nil
	}
	var strict *toml.StrictMissingError
	var de *toml.DecodeError
	switch {
	case errors.As(err, &strict) && len(strict.Errors) > 0:
		e := strict.Errors[0]
		row, col := e.Position()
		return fmt.Errorf("%s:%d:%d: unknown key %q (known: roots, ignore, model, fail_on, [[suppress]] with rule, path, reason)", c.File, row, col, strings.Join(e.Key(), "."))
	case errors.As(err, &de):
		row, col := de.Position()
		return fmt.Errorf("%s:%d:%d: %v", c.File, row, col, de)
	}
	return fmt.Errorf("%s: %w", c.File, err)
}

func (c *Config) validate() error {
	name := c.File
	for _, g := range c.Ignore {
		if !check.ValidGlob(g) {
			return fmt.Errorf("%s:%d: ignore: bad glob %q (a '[' with no ']'?)", name, c.line(g), g)
		}
	}
	for _, m := range c.Model {
		if _, err := model.ParsePersistence(m); err != nil {
			return fmt.Errorf("%s:%d: model: %v", name, c.line(m), err)
		}
	}
	if c.FailOn != "" {
		if _, err := check.ParseSeverity(c.FailOn); err != nil {
			return fmt.Errorf("%s:%d: fail_on: %v", name, c.line(c.FailOn), err)
		}
	}
	for i, s := range c.Suppress {
		at := c.nthLine("[[suppress]]", i)
		switch {
		case s.Rule == "":
			return fmt.Errorf("%s:%d: [[suppress]] needs a rule", name, at)
		case s.Reason == "":
			return fmt.Errorf("%s:%d: [[suppress]] of %s needs a reason: say why a crash there is acceptable", name, at, s.Rule)
		case s.Path != "" && !check.ValidGlob(s.Path):
			return fmt.Errorf("%s:%d: [[suppress]] path: bad glob %q", name, c.line(s.Path), s.Path)
		}
		if _, ok := check.Lookup(s.Rule); !ok {
			return fmt.Errorf("%s:%d: [[suppress]]: no rule %q (crashsim rules lists them)", name, c.line(s.Rule), s.Rule)
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
// messages about values (the decoder gives positions only for keys).
func (c *Config) line(value string) int {
	for i, l := range strings.Split(string(c.raw), "\n") {
		if strings.Contains(l, `"`+value+`"`) || strings.Contains(l, `'`+value+`'`) {
			return i + 1
		}
	}
	return 1
}

// nthLine is the line of the n-th (from 0) line that starts with prefix.
func (c *Config) nthLine(prefix string, n int) int {
	for i, l := range strings.Split(string(c.raw), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			if n == 0 {
				return i + 1
			}
			n--
		}
	}
	return 1
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/bmatcuk/doublestar/v4"
	"github.com/crashsim/crashsim/check"
	"github.com/pelletier/go-toml/v2"
)

// configName is the file crashsim looks for in the current directory and
// each directory above it.
const configName = ".crashsim.toml"

// config is .crashsim.toml. Every key is optional; a flag given on the
// command line wins over the key, except ignore, whose globs add up.
type config struct {
	Roots    []string   `toml:"roots"`   // relative to the config file's directory
	Ignore   []string   `toml:"ignore"`  // doublestar globs, see ignoreMatch
	Model    []string   `toml:"model"`   // posix, ext4
	FailOn   string     `toml:"fail_on"` // error, warning, info, never
	Suppress []suppress `toml:"suppress"`

	file string // where it was read from
	dir  string // its directory
	raw  []byte
}

// suppress leaves out findings of one rule at paths matching a glob, for a
// stated reason (a path the program rebuilds at start, a cache).
type suppress struct {
	Rule   string `toml:"rule"`
	Path   string `toml:"path"`
	Reason string `toml:"reason"`
}

// findConfig returns the config file that applies: name when given, else
// .crashsim.toml in dir or the nearest directory above it, else "".
func findConfig(name, dir string) (string, error) {
	if name != "" {
		return name, nil
	}
	for {
		p := filepath.Join(dir, configName)
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

// readConfig reads and checks a config file. Every problem is a usage
// error naming the file and line.
func readConfig(name string) (*config, error) {
	raw, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c := &config{file: name, raw: raw}
	if abs, err := filepath.Abs(name); err == nil {
		c.dir = filepath.Dir(abs)
	}
	dec := toml.NewDecoder(bytes.NewReader(raw)).DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		var strict *toml.StrictMissingError
		var de *toml.DecodeError
		switch {
		case errors.As(err, &strict) && len(strict.Errors) > 0:
			e := strict.Errors[0]
			row, col := e.Position()
			return nil, fmt.Errorf("%s:%d:%d: unknown key %q (known: roots, ignore, model, fail_on, [[suppress]] with rule, path, reason)", name, row, col, strings.Join(e.Key(), "."))
		case errors.As(err, &de):
			row, col := de.Position()
			return nil, fmt.Errorf("%s:%d:%d: %v", name, row, col, de)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, g := range c.Ignore {
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("%s:%d: ignore: bad glob %q (a '[' with no ']'?)", name, c.line(g), g)
		}
	}
	for _, m := range c.Model {
		if m != "posix" && m != "ext4" {
			return nil, fmt.Errorf("%s:%d: model: %q is not a model (posix or ext4)", name, c.line(m), m)
		}
	}
	if c.FailOn != "" {
		if _, err := check.ParseSeverity(c.FailOn); err != nil {
			return nil, fmt.Errorf("%s:%d: fail_on: %v", name, c.line(c.FailOn), err)
		}
	}
	for i, s := range c.Suppress {
		at := c.nthLine("[[suppress]]", i)
		switch {
		case s.Rule == "":
			return nil, fmt.Errorf("%s:%d: [[suppress]] needs a rule", name, at)
		case s.Reason == "":
			return nil, fmt.Errorf("%s:%d: [[suppress]] of %s needs a reason: say why a crash there is acceptable", name, at, s.Rule)
		case s.Path != "" && !doublestar.ValidatePattern(s.Path):
			return nil, fmt.Errorf("%s:%d: [[suppress]] path: bad glob %q", name, c.line(s.Path), s.Path)
		}
		if _, ok := check.Lookup(s.Rule); !ok {
			return nil, fmt.Errorf("%s:%d: [[suppress]]: no rule %q (crashsim rules lists them)", name, c.line(s.Rule), s.Rule)
		}
	}
	for i, r := range c.Roots {
		if !filepath.IsAbs(r) {
			c.Roots[i] = filepath.Join(c.dir, r)
		}
	}
	return c, nil
}

// line is the first line of the file that holds the quoted value, for
// messages about values (the decoder gives positions only for keys).
func (c *config) line(value string) int {
	for i, l := range strings.Split(string(c.raw), "\n") {
		if strings.Contains(l, `"`+value+`"`) || strings.Contains(l, `'`+value+`'`) {
			return i + 1
		}
	}
	return 1
}

// nthLine is the line of the n-th (from 0) line that starts with prefix.
func (c *config) nthLine(prefix string, n int) int {
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

// configCommands are the commands a config applies to. explore takes
// only its ignore globs and suppressions: its root and model are fixed by
// how it runs.
var configCommands = map[string]bool{"check": true, "trace": true, "explore": true}

// configResolver gives kong the config's values for flags not given on the
// command line, and keeps the config in g for the keys that are not flags
// (suppress) or that add up with the flags (ignore).
func configResolver(g *Globals) kong.ResolverFunc {
	loaded := false
	return func(ctx *kong.Context, parent *kong.Path, flag *kong.Flag) (any, error) {
		sel := ctx.Selected()
		if sel == nil || !configCommands[sel.Name] {
			return nil, nil
		}
		if !loaded {
			loaded = true
			if err := g.loadConfig(ctx); err != nil {
				return nil, err
			}
		}
		c := g.cfg
		if c == nil || sel.Name == "explore" {
			return nil, nil
		}
		switch flag.Name {
		case "model":
			if len(c.Model) > 0 {
				return strings.Join(c.Model, ","), nil
			}
		case "fail-on":
			if c.FailOn != "" {
				return c.FailOn, nil
			}
		case "root":
			if len(c.Roots) > 0 {
				return strings.Join(c.Roots, ","), nil
			}
		}
		return nil, nil
	}
}

// loadConfig finds and reads the config, once per run.
func (g *Globals) loadConfig(ctx *kong.Context) error {
	name := ""
	for _, f := range ctx.Flags() {
		if f.Name == "config" {
			if s, ok := ctx.FlagValue(f).(string); ok {
				name = s
			}
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	p, err := findConfig(name, wd)
	if err != nil || p == "" {
		return err
	}
	c, err := readConfig(p)
	if err != nil {
		return &configError{err}
	}
	g.cfg = c
	return nil
}

// configError is a config problem; main prints it as it is, without the
// flag kong was resolving when it was found.
type configError struct{ err error }

func (e *configError) Error() string { return e.err.Error() }
func (e *configError) Unwrap() error { return e.err }

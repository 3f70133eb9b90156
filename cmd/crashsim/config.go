package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/internal/textesc"
)

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

// loadConfig finds and reads the config, once per run, and says which
// one it read: a config decides which findings are reported, so a run
// that read one says so even when it reports nothing.
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
	if g.cfg, err = crashsim.LoadConfig(name, wd); err != nil || g.cfg == nil {
		return err
	}
	g.cfgName = g.cfg.File // a config in this directory by its name, others whole
	if filepath.Dir(g.cfgName) == wd {
		g.cfgName = filepath.Base(g.cfgName)
	}
	fmt.Fprintf(g.stderr, "crashsim: config %s\n", textesc.Escape(g.cfgName))
	return nil
}

package main

import (
	"os"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/crashsim/crashsim"
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
	p, err := crashsim.FindConfig(name, wd)
	if err != nil || p == "" {
		return err
	}
	g.cfg, err = crashsim.ReadConfig(p)
	return err
}

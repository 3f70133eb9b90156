package main

import (
	"strings"

	"github.com/alecthomas/kong"
	"github.com/crashsim/crashsim"
	"github.com/crashsim/crashsim/internal/clidoc"
)

// The completion scripts and the man page are generated from the same
// kong model as --help (package clidoc), so that they cannot fall behind
// the flags.

type completionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"bash, zsh or fish."`
}

// Help is the detail under `crashsim completion --help`.
func (c *completionCmd) Help() string {
	return `Prints a completion script for commands, flags and their values. Load it with: source <(crashsim completion bash) in ~/.bashrc; source <(crashsim completion zsh) in ~/.zshrc; crashsim completion fish > ~/.config/fish/completions/crashsim.fish.`
}

func (c *completionCmd) Run(g *Globals, ctx *kong.Context) error {
	return clidoc.Completion(g.stdout, ctx.Model, c.Shell)
}

type manCmd struct{}

// Help is the detail under `crashsim man --help`.
func (c *manCmd) Help() string {
	return `Prints crashsim(1) in roff, from the same text as --help: crashsim man > crashsim.1 && man ./crashsim.1`
}

func (c *manCmd) Run(g *Globals, ctx *kong.Context) error {
	page := clidoc.Page{
		Version: crashsim.Tool().Version,
		Name:    "what a power cut while a program saves can leave on disk",
		Files:   [][2]string{{".crashsim.toml", "Settings for check, trace and explore, read from the current directory or the nearest one above it (see docs/ci.md)."}},
		SeeAlso: ".BR strace (1)",
	}
	for _, l := range strings.Split(strings.TrimSpace(exitTable), "\n")[1:] {
		code, text, _ := strings.Cut(strings.TrimSpace(l), " ")
		page.Exit = append(page.Exit, [2]string{code, strings.TrimSpace(text)})
	}
	return clidoc.Man(g.stdout, ctx.Model, page)
}

package main

import (
	"fmt"

	"github.com/alecthomas/kong"
	"github.com/crashsim/crashsim"
)

// versionFlag prints the version and exits, like --help.
type versionFlag bool

func (versionFlag) BeforeReset(app *kong.Kong) error {
	t := crashsim.Tool()
	rev := t.Revision
	if rev == "" {
		rev = "unknown revision"
	}
	fmt.Fprintf(app.Stdout, "crashsim %s (%s)\n", t.Version, rev)
	app.Exit(0)
	return nil
}

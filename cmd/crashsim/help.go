package main

import (
	"fmt"

	"github.com/alecthomas/kong"
)

// exitTable is the one table of exit statuses, printed under every --help
// so that a CI script's author finds it wherever they look.
const exitTable = `
Exit status (every command):
  0    nothing at or above --fail-on (default: warning)
  1    problems at or above --fail-on (a problem is as severe as its worst finding; oracle: a state the model did not predict)
  2    usage error: a bad flag, argument, glob, .crashsim.toml or TMPDIR
  3    input error: a trace unreadable or unparseable, strace or the program not found
  4    iobench: O_DIRECT refused by the filesystem
  5    the traced program failed (trace, explore); findings are still printed
  6    a blind spot and nothing at or above --fail-on: the recording hides what
       a verdict needs (check, states, explore, trace), or explore left
       distinct states unchecked (--max-states); --accept-blind ID accepts a
       known one
  130  interrupted by Ctrl-C or SIGTERM (explore, oracle, iobench)
`

// helpWithExits is kong's help followed by the exit table.
func helpWithExits(options kong.HelpOptions, ctx *kong.Context) error {
	if err := kong.DefaultHelpPrinter(options, ctx); err != nil {
		return err
	}
	_, err := fmt.Fprint(ctx.Stdout, exitTable)
	return err
}

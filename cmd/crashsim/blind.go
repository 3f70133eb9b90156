package main

import (
	"bufio"
	"fmt"

	"github.com/crashsim/crashsim/check"
)

// explainBlind prints a blind spot for `crashsim explain ID`, reporting
// false when id names none.
func explainBlind(g *Globals, id string) (bool, error) {
	b, ok := check.LookupBlind(id)
	if !ok {
		return false, nil
	}
	w := bufio.NewWriter(g.stdout)
	fmt.Fprintf(w, "%s (blind spot): the recording cannot show %s\n\n", b.ID, b.Hides)
	wrap(w, "A blind spot is about the trace, not the program: crashsim works it out from the trace itself and says it on stderr with the line where it was first seen. With no finding at or above --fail-on, check, states, explore and trace exit 6 instead of 0; --accept-blind "+b.ID+" accepts it.", "  ", explainWidth)
	fmt.Fprintf(w, "\nFix:\n")
	wrap(w, b.Fix+".", "  ", explainWidth)
	return true, w.Flush()
}

package oracle

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/crashsim/crashsim/internal/textesc"
)

// WriteText writes a result as text: per crash point the call, and per
// path the observed outcome, the predicted set and whether it fits.
func WriteText(w io.Writer, r *Result) error {
	fmt.Fprintf(w, "oracle: %s on %s, %s model\n", commandText(r.Command), r.FS, r.Model)
	for _, p := range r.Points {
		pointHeader(w, p.Index, p.Line, p.Call, p.Note, p.Reached, p.Sound)
		if !p.Reached {
			continue
		}
		bad := map[string]bool{}
		for _, m := range p.Mismatches {
			bad[m.Path] = true
		}
		paths, width := sortedPaths(p.Observed)
		for _, q := range paths {
			mark := "sound"
			if bad[q] {
				mark = "MISMATCH"
			}
			pred := "{" + strings.Join(p.Predicted[q], "|") + "}"
			for _, m := range p.Mismatches {
				if m.Path == q && m.Untracked {
					pred += " (not tracked by the model)"
				}
			}
			fmt.Fprintf(w, "  %-*s  observed %-8s predicted %s  %s\n", width, textesc.Escape(q), p.Observed[q], pred, mark)
		}
	}
	s := r.Summary
	_, err := fmt.Fprintf(w, "\nsummary: %d crash points, %d observed (%d distinct states), %d mismatches; %d of %d predicted outcomes observed\n", s.Points, s.Observed, s.Distinct, s.Mismatches, s.Seen, s.Predicted)
	return err
}

// pointHeader writes the line that opens a crash point in both text
// reports, and the point's note. call is the parser's rendering (escaped
// already); the note and every path printed after it are escaped here, so
// that a file name holding a newline cannot print as a line of crashsim's
// own.
func pointHeader(w io.Writer, index, line int, call, note string, reached, sound bool) {
	verdict := "sound"
	switch {
	case !reached:
		verdict = "not observed"
	case !sound:
		verdict = "MISMATCH"
	}
	fmt.Fprintf(w, "\npoint %d after line %d: %s  [%s]\n", index, line, call, verdict)
	if note != "" {
		fmt.Fprintf(w, "  note: %s\n", textesc.Escape(note))
	}
}

// commandText is the workload's command line, each word escaped.
func commandText(cmd []string) string {
	words := make([]string, len(cmd))
	for i, a := range cmd {
		words[i] = textesc.Escape(a)
	}
	return strings.Join(words, " ")
}

// sortedPaths returns the keys of a per-path map in order, and the width
// of the widest once escaped, for aligned columns.
func sortedPaths[V any](m map[string]V) ([]string, int) {
	paths := make([]string, 0, len(m))
	width := 0
	for q := range m {
		paths = append(paths, q)
		width = max(width, len(textesc.Escape(q)))
	}
	sort.Strings(paths)
	return paths, width
}

// WriteJSON writes a result as one JSON document.
func WriteJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

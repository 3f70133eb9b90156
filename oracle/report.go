package oracle

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteText writes a result as text: per crash point the call, and per
// path the observed outcome, the predicted set and whether it fits.
func WriteText(w io.Writer, r *Result) error {
	fmt.Fprintf(w, "oracle: %s on %s, %s model\n", strings.Join(r.Command, " "), r.FS, r.Model)
	for _, p := range r.Points {
		verdict := "sound"
		switch {
		case !p.Reached:
			verdict = "not observed"
		case !p.Sound:
			verdict = "MISMATCH"
		}
		fmt.Fprintf(w, "\npoint %d after line %d: %s  [%s]\n", p.Index, p.Line, p.Call, verdict)
		if p.Note != "" {
			fmt.Fprintf(w, "  note: %s\n", p.Note)
		}
		if !p.Reached {
			continue
		}
		bad := map[string]bool{}
		for _, m := range p.Mismatches {
			bad[m.Path] = true
		}
		paths := make([]string, 0, len(p.Observed))
		width := 0
		for q := range p.Observed {
			paths = append(paths, q)
			width = max(width, len(q))
		}
		sort.Strings(paths)
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
			fmt.Fprintf(w, "  %-*s  observed %-8s predicted %s  %s\n", width, q, p.Observed[q], pred, mark)
		}
	}
	s := r.Summary
	_, err := fmt.Fprintf(w, "\nsummary: %d crash points, %d observed (%d distinct states), %d mismatches; %d of %d predicted outcomes observed\n", s.Points, s.Observed, s.Distinct, s.Mismatches, s.Seen, s.Predicted)
	return err
}

// WriteJSON writes a result as one JSON document.
func WriteJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

package oracle

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/crashsim/crashsim/internal/textesc"
)

// WriteBlocksText writes a block-log result as text: per crash point what
// was in flight, how many states were replayed and how many distinct
// trees they left, and per path every outcome observed beside the
// predicted set and the part of it some state produced.
func WriteBlocksText(w io.Writer, r *BlockResult) error {
	fmt.Fprintf(w, "oracle --blocks: %s on %s, %s model (exhaustive up to %d in flight, else %d samples, seed %d)\n",
		commandText(r.Command), r.FS, r.Model, r.Enum.Exhaustive, r.Enum.Samples, r.Enum.Seed)
	for _, p := range r.Points {
		pointHeader(w, p.Index, p.Line, p.Call, p.Note, p.Reached, p.Sound)
		if !p.Reached {
			continue
		}
		subsets := fmt.Sprint(p.Subsets)
		if p.Subsets == ^uint64(0) {
			subsets = "more than 2^63"
		}
		fmt.Fprintf(w, "  device: %d flushes, then %d writes in flight (%s subsets); %d flushes during the call with writes before them\n",
			p.Flushes, p.InFlight, subsets, p.Windows)
		fmt.Fprintf(w, "  states: %d replayed, %d distinct trees (%d at the point, %d during the call)\n", p.States, p.Distinct, p.DistinctAt, p.DistinctDuring)
		paths, width := sortedPaths(p.Paths)
		for _, q := range paths {
			bp := p.Paths[q]
			pred := "{" + strings.Join(bp.Predicted, "|") + "}"
			if bp.Untracked {
				pred += " (not tracked by the model)"
			}
			during := ""
			if len(bp.During) > 0 {
				during = " during {" + strings.Join(bp.During, "|") + "}"
			}
			fmt.Fprintf(w, "  %-*s  observed {%s}%s predicted %s produced {%s}\n", width, textesc.Escape(q), strings.Join(bp.Observed, "|"), during, pred, strings.Join(bp.Produced, "|"))
		}
		for _, m := range p.Mismatches {
			fmt.Fprintf(w, "  MISMATCH %s: %s (size %d, matches %s) is not in %s, in the state with %s",
				textesc.Escape(m.Path), m.Observed, m.Size, strings.Join(m.Matches, "|"), "{"+strings.Join(m.Predicted, "|")+"}", m.State)
			if m.Image != "" {
				fmt.Fprintf(w, " (image %s)", m.Image)
			}
			fmt.Fprintln(w)
		}
		for _, u := range p.Unmountable {
			fmt.Fprintf(w, "  UNMOUNTABLE: %s\n", textesc.Escape(u))
		}
	}
	s := r.Summary
	verdict := "sound"
	if !s.Sound {
		verdict = "NOT sound"
	}
	_, err := fmt.Fprintf(w, "\nsummary: %d crash points, %d reached; %d states replayed (%d images mounted, %d distinct trees over the points); %d mismatches, %d unmountable: %s; precision %d/%d predicted outcomes produced (%.0f%%); replay %.1f s, %.1f states/s\n",
		s.Points, s.Reached, s.States, s.Mounted, s.Distinct, s.Mismatches, s.Unmountable, verdict, s.Produced, s.Predicted, 100*s.Precision, s.ReplaySeconds, s.StatesPerSecond)
	return err
}

// WriteBlocksJSON writes a block-log result as one JSON document.
func WriteBlocksJSON(w io.Writer, r *BlockResult) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/crashsim/crashsim/internal/textesc"
	"github.com/crashsim/crashsim/model"
	"github.com/crashsim/crashsim/report/wire"
)

// Sources of an oracle's crash states (OracleResult.Source).
const (
	// OracleSnapshot: one copy of the device per crash point, taken while
	// the program was stopped there.
	OracleSnapshot = "snapshot"
	// OracleBlocks: every state a log of the device's writes allows at a
	// crash point, and in the middle of its call, replayed.
	OracleBlocks = "blocks"
)

// OracleResult is what crashsim oracle found under one persistence model:
// the crash states a real filesystem left at each crash point of a
// program, path by path, against what the model predicts there. Its JSON
// field names are a stable interface.
type OracleResult struct {
	FS      string   `json:"fs"`
	Model   string   `json:"model"`
	Command []string `json:"command"`
	Source  string   `json:"source"` // OracleSnapshot or OracleBlocks
	// Enumeration is the bounds a block replay used, so that it can be
	// repeated (nil for snapshots).
	Enumeration *OracleEnumeration `json:"enumeration,omitempty"`
	Points      []OraclePoint      `json:"points"`
	Summary     OracleSummary      `json:"summary"`
	Dir         string             `json:"dir,omitempty"` // the temporary directory, when kept
}

// OracleEnumeration bounds the states a block replay builds per point.
type OracleEnumeration struct {
	Exhaustive int    `json:"exhaustive"` // every subset up to this many writes in flight
	Samples    int    `json:"samples"`    // random subsets past it
	Seed       uint64 `json:"seed"`
}

// OraclePoint is one crash point: the states observed there and, per
// path (relative to the work directory), their outcomes beside the
// model's prediction.
type OraclePoint struct {
	Index   int    `json:"index"` // 1, 2, ... as the first run's crash points
	Line    int    `json:"line"`  // trace line of the event (first run)
	Syscall string `json:"syscall"`
	Call    string `json:"call"`
	Reached bool   `json:"reached"` // false: no state was observed at the point
	// Note says what made this point unusual: never reached, stopped at
	// another point than intended, other processes ran meanwhile.
	Note   string        `json:"note,omitempty"`
	Device *OracleDevice `json:"device,omitempty"` // block replay: what the device held
	States int           `json:"states"`           // states compared
	// Distinct counts the distinct trees of the work directory among
	// them: at the point itself (a snapshot sees one) and in the middle
	// of its call (block replay only).
	Distinct       int                    `json:"distinct"`
	DistinctAt     int                    `json:"distinctAt"`
	DistinctDuring int                    `json:"distinctDuring"`
	Unmountable    []string               `json:"unmountable"` // states the filesystem would not mount
	Paths          map[string]*OraclePath `json:"paths"`
	Sound          bool                   `json:"sound"`
	Mismatches     []OracleMismatch       `json:"mismatches"`
}

// OracleDevice is what a block log showed at a crash point.
type OracleDevice struct {
	Flushes  int `json:"flushes"`  // flushes the device had been sent
	InFlight int `json:"inFlight"` // writes and discards since the last one
	// Subsets is 2^InFlight (saturating at 2^64-1): the states a device
	// that reorders can leave, torn writes aside.
	Subsets uint64 `json:"subsets"`
	Windows int    `json:"windows"` // flushes during the call with writes in flight before them
}

// OraclePath is what one path showed over the states of a point. An
// untracked path (one the model says nothing of: it must be as it was) is
// listed only when a state changed it.
type OraclePath struct {
	// Observed names the outcome of each distinct content at the point;
	// During those of a crash in the middle of the call, each fitting
	// this point's prediction or the point's before.
	Observed  []string `json:"observed"`
	During    []string `json:"during,omitempty"`
	Predicted []string `json:"predicted"`
	Produced  []string `json:"produced"` // the predicted outcomes some state showed
	Untracked bool     `json:"untracked,omitempty"`
}

// OracleMismatch is an observed content outside the predicted set.
type OracleMismatch struct {
	Path      string   `json:"path"`
	Observed  string   `json:"observed"`
	Matches   []string `json:"matches"` // every outcome the content matches
	Predicted []string `json:"predicted"`
	Untracked bool     `json:"untracked,omitempty"`
	Size      int64    `json:"size"`            // -1 when missing
	State     string   `json:"state,omitempty"` // block replay: which writes in flight it kept
	Image     string   `json:"image,omitempty"` // the image, when kept
	// Joint is set, and Path empty, when each path of the state is
	// predicted but no crash state of the model has them together: what
	// the paths whose outcome varies held.
	Joint string `json:"joint,omitempty"`
}

// OracleSummary counts a result.
type OracleSummary struct {
	Points      int `json:"points"`   // crash points of the first run
	Reached     int `json:"reached"`  // points with a state observed
	States      int `json:"states"`   // states compared, over all points
	Mounted     int `json:"mounted"`  // distinct images mounted
	Distinct    int `json:"distinct"` // distinct trees of the work directory, over the run
	Unmountable int `json:"unmountable"`
	Mismatches  int `json:"mismatches"` // mismatched paths and unmountable states
	// Joint: reached points whose states were judged as a whole too (the
	// model's joint states there counted exactly, at most 4096).
	Joint int `json:"joint"`
	// Precision: of the outcomes predicted for the tracked paths at the
	// points reached (Predicted), how many some state showed (Produced).
	Predicted int     `json:"predicted"`
	Produced  int     `json:"produced"`
	Precision float64 `json:"precision"`
	Sound     bool    `json:"sound"`
	// ReplaySeconds is the time a block replay spent building, mounting
	// and reading states; StatesPerSecond is States over it.
	ReplaySeconds   float64 `json:"replaySeconds,omitempty"`
	StatesPerSecond float64 `json:"statesPerSecond,omitempty"`
}

// OracleJSON writes a result as one JSON document.
func OracleJSON(w io.Writer, r *OracleResult) error {
	e := wire.NewEncoder(w, wire.IndentedEscaped)
	if err := e.Value(r); err != nil {
		return err
	}
	e.Raw("\n")
	return e.Flush()
}

// OracleText writes a result for a person: per crash point the call, what
// the device held (block replay), and per path the outcomes observed
// beside the predicted ones; every mismatch in words.
func OracleText(w io.Writer, r *OracleResult) error {
	blocks := r.Source == OracleBlocks
	if blocks {
		e := r.Enumeration
		if e == nil {
			e = &OracleEnumeration{}
		}
		fmt.Fprintf(w, "oracle --blocks: %s on %s, %s model (exhaustive up to %d in flight, else %d samples, seed %d)\n",
			commandText(r.Command), r.FS, r.Model, e.Exhaustive, e.Samples, e.Seed)
	} else {
		fmt.Fprintf(w, "oracle: %s on %s, %s model\n", commandText(r.Command), r.FS, r.Model)
	}
	sum := 0
	for i := range r.Points {
		p := &r.Points[i]
		oraclePointText(w, r, p, blocks)
		sum += p.Distinct
	}
	s := r.Summary
	if !blocks {
		_, err := fmt.Fprintf(w, "\nsummary: %d crash points, %d observed (%d distinct states), %d mismatches; %d points judged whole, not only path by path; %d of %d predicted outcomes observed\n",
			s.Points, s.Reached, s.Distinct, s.Mismatches, s.Joint, s.Produced, s.Predicted)
		return err
	}
	verdict := "sound"
	if !s.Sound {
		verdict = "NOT sound"
	}
	_, err := fmt.Fprintf(w, "\nsummary: %d crash points, %d reached; %d states replayed (%d images mounted, %d distinct trees over the points); %d mismatches, %d unmountable: %s; %d points judged whole, not only path by path; precision %d/%d predicted outcomes produced (%.0f%%); replay %.1f s, %.1f states/s\n",
		s.Points, s.Reached, s.States, s.Mounted, sum, s.Mismatches, s.Unmountable, verdict, s.Joint, s.Produced, s.Predicted, 100*s.Precision, s.ReplaySeconds, s.StatesPerSecond)
	return err
}

func oraclePointText(w io.Writer, r *OracleResult, p *OraclePoint, blocks bool) {
	verdict := "sound"
	switch {
	case !p.Reached:
		verdict = "not observed"
	case !p.Sound:
		verdict = "MISMATCH"
	}
	// The call is the parser's rendering (escaped already); the note and
	// every path are escaped here, so that a file name holding a newline
	// cannot print as a line of crashsim's own.
	fmt.Fprintf(w, "\npoint %d after line %d: %s  [%s]\n", p.Index, p.Line, p.Call, verdict)
	if p.Note != "" {
		fmt.Fprintf(w, "  note: %s\n", textesc.Escape(p.Note))
	}
	if !p.Reached {
		return
	}
	if d := p.Device; d != nil {
		subsets := fmt.Sprint(d.Subsets)
		if d.Subsets == ^uint64(0) {
			subsets = "more than 2^63"
		}
		fmt.Fprintf(w, "  device: %d flushes, then %d writes in flight (%s subsets); %d flushes during the call with writes before them\n",
			d.Flushes, d.InFlight, subsets, d.Windows)
	}
	if blocks {
		fmt.Fprintf(w, "  states: %d replayed, %d distinct trees (%d at the point, %d during the call)\n", p.States, p.Distinct, p.DistinctAt, p.DistinctDuring)
	}
	bad := map[string]bool{}
	for _, m := range p.Mismatches {
		bad[m.Path] = true
	}
	paths := make([]string, 0, len(p.Paths))
	width := 0
	for q := range p.Paths {
		paths = append(paths, q)
		width = max(width, len(textesc.Escape(q)))
	}
	sort.Strings(paths)
	for _, q := range paths {
		op := p.Paths[q]
		pred := "{" + model.OutcomeList(op.Predicted) + "}"
		if op.Untracked {
			pred += " (not tracked by the model)"
		}
		if blocks {
			during := ""
			if len(op.During) > 0 {
				during = " during {" + model.OutcomeList(op.During) + "}"
			}
			fmt.Fprintf(w, "  %-*s  observed {%s}%s predicted %s produced {%s}\n", width, textesc.Escape(q), model.OutcomeList(op.Observed), during, pred, model.OutcomeList(op.Produced))
			continue
		}
		mark := "sound"
		if bad[q] {
			mark = "MISMATCH"
		}
		fmt.Fprintf(w, "  %-*s  observed %-8s predicted %s  %s\n", width, textesc.Escape(q), model.OutcomeList(op.Observed), pred, mark)
	}
	for _, m := range p.Mismatches {
		fmt.Fprintf(w, "  MISMATCH %s\n", mismatchWords(r.Model, m))
	}
	for _, u := range p.Unmountable {
		fmt.Fprintf(w, "  UNMOUNTABLE: %s\n", textesc.Escape(u))
	}
}

// mismatchWords says what a state left at a path that the model did not
// predict, in the words every report uses for outcomes.
func mismatchWords(modelName string, m OracleMismatch) string {
	var b strings.Builder
	if m.Path == "" {
		// A joint mismatch.
		fmt.Fprintf(&b, "together: %s; each is predicted, but no crash state of the %s model leaves them so", textesc.Escape(m.Joint), modelName)
		if m.State != "" {
			fmt.Fprintf(&b, " (the state with %s)", textesc.Escape(m.State))
		}
		if m.Image != "" {
			fmt.Fprintf(&b, " (image %s)", textesc.Escape(m.Image))
		}
		return b.String()
	}
	b.WriteString(textesc.Escape(m.Path))
	b.WriteString(": ")
	b.WriteString(model.OutcomeWords(model.Outcome(m.Observed)))
	if m.Size >= 0 {
		fmt.Fprintf(&b, ", %d bytes", m.Size)
	}
	if m.State != "" {
		fmt.Fprintf(&b, ", in the state with %s", textesc.Escape(m.State))
	}
	if m.Image != "" {
		fmt.Fprintf(&b, " (image %s)", textesc.Escape(m.Image))
	}
	if m.Untracked {
		fmt.Fprintf(&b, "; the %s model does not track it, so it must be %s", modelName, model.OutcomeChoice(m.Predicted))
	} else {
		fmt.Fprintf(&b, "; the %s model predicts %s", modelName, model.OutcomeChoice(m.Predicted))
	}
	return b.String()
}

// commandText is the workload's command line, each word escaped.
func commandText(cmd []string) string {
	words := make([]string, len(cmd))
	for i, a := range cmd {
		words[i] = textesc.Escape(a)
	}
	return strings.Join(words, " ")
}

package oracle

import (
	"sort"
	"strings"

	"github.com/crashsim/crashsim/model"
)

// Joint soundness. A state fits path by path when each path holds one of
// its predicted outcomes; the model also says which of them go together
// (a rename on disk with the file it publishes, an append only with the
// names made before it under the ordered models). A state whose paths
// each fit but together match no joint crash state of the model is a
// mismatch too: the model's combinations were too few.

// jointMax bounds the joint states a point's prediction lists: past it,
// or when the model's count is a bound, the point is judged path by path
// only.
const jointMax = 4096

// jointView is the model's joint crash states at a point, as the outcome
// of each path in paths (the tracked paths the model can follow).
type jointView struct {
	paths []string
	rows  [][]model.Outcome // distinct
}

// jointOf lists the joint states at last, or nil when they are too many
// or not counted exactly. pred and blind are the point's view.
func (r *runner) jointOf(last *model.Point, pred map[string][]model.Outcome, blind map[string]bool) *jointView {
	if last == nil || !last.Exact || last.States > jointMax {
		return nil
	}
	jv := &jointView{}
	for q := range pred {
		if !blind[q] {
			jv.paths = append(jv.paths, q)
		}
	}
	sort.Strings(jv.paths)
	seen := map[string]bool{}
	for js := range last.Joint().All {
		row := make([]model.Outcome, len(jv.paths))
		var key strings.Builder
		for i, q := range jv.paths {
			row[i] = js.Path(r.work + "/" + q).Outcome
			key.WriteString(string(row[i]))
			key.WriteByte(0)
		}
		if !seen[key.String()] {
			seen[key.String()] = true
			jv.rows = append(jv.rows, row)
		}
	}
	return jv
}

// jointFits reports whether a state that can be a crash at cands (match
// says what its paths match: matchIn) is one joint state of the model at
// one of them; true too where no joint view was made. When it is not, it
// says what the paths of the point's own view hold (the outcomes their
// content matches) that vary there or fit there only at another
// candidate.
func (r *runner) jointFits(cands []int, views map[int]*pointView, match func(c int, q string) []model.Outcome) (bool, string) {
	words := ""
	for ci := len(cands) - 1; ci >= 0; ci-- {
		v := views[cands[ci]]
		if v == nil || v.joint == nil {
			return true, ""
		}
		jv := v.joint
		m := make([][]model.Outcome, len(jv.paths))
		for i, q := range jv.paths {
			m[i] = match(cands[ci], q)
		}
		for _, row := range jv.rows {
			ok := true
			for i, x := range row {
				if !has(m[i], x) {
					ok = false
					break
				}
			}
			if ok {
				return true, ""
			}
		}
		if words == "" {
			// The paths whose outcome varies at this point, and those
			// whose content fits it only at another candidate.
			var parts []string
			for i, q := range jv.paths {
				if _, fits := pick(m[i], v.pred[q]); len(v.pred[q]) > 1 || !fits {
					parts = append(parts, q+" "+model.OutcomeList(m[i]))
				}
			}
			words = strings.Join(parts, ", ")
		}
	}
	return false, words
}

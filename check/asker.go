package check

import (
	"slices"

	"github.com/crashsim/crashsim/model"
)

// asker is what a rule's end asks a model about crash states: the model
// itself (modelAsker), from the goroutine that uses it, or its
// read-only Still view (viewAsker), from any goroutine while nothing changes the
// model, which declines (ok false) where answering would change it.
// One code path serves both: the rules that work ahead (see ahead) ask
// the view, and ask the model alone where the view declined.
type asker interface {
	crash(p string) (po model.PathOutcomes, ok bool)
	crashFirst(p string, want func(model.PathState) bool) (s model.PathState, found, ok bool)
	words(p string, s model.PathState) (string, bool)
	// before is the name the file a state leaves as it was before the
	// run had then, when not p (model.NameBeforeRun).
	before(p string, s model.PathState) (string, bool)
}

// modelAsker asks the model itself: it always answers.
type modelAsker struct{ m *model.Model }

func (a modelAsker) crash(p string) (model.PathOutcomes, bool) { return crashOf(a.m, p), true }

func (a modelAsker) crashFirst(p string, want func(model.PathState) bool) (model.PathState, bool, bool) {
	s, found := a.m.CrashFirst(p, 256, want)
	return s, found, true
}

func (a modelAsker) words(p string, s model.PathState) (string, bool) {
	return a.m.StateWords(p, s), true
}

func (a modelAsker) before(p string, s model.PathState) (string, bool) {
	return a.m.NameBeforeRun(p, s), true
}

// viewAsker asks the model's Still view, keeping the room of its last crash
// states for the next (keepRoom).
type viewAsker struct {
	st   model.Still
	room *[]model.PathState
}

func (a viewAsker) crash(p string) (model.PathOutcomes, bool) {
	po, ok := a.st.CrashReuse(p, 256, *a.room)
	*a.room = keepRoom(po.States)
	return po, ok
}

func (a viewAsker) crashFirst(p string, want func(model.PathState) bool) (model.PathState, bool, bool) {
	return a.st.CrashFirst(p, 256, want)
}

func (a viewAsker) words(p string, s model.PathState) (string, bool) {
	return a.st.StateWords(p, s)
}

func (a viewAsker) before(p string, s model.PathState) (string, bool) {
	return a.st.NameBeforeRun(p, s)
}

// lossAt is what data-not-synced says of a crash at path p: what it can
// leave in words (leaves) and the state that shows a loss (demonstrate),
// or ok false where a declined.
func lossAt(a asker, at model.Ref, p string) (words string, state *State, ok bool) {
	po, ok := a.crash(p)
	if !ok {
		return "", nil, false
	}
	words = leavesIn(po)
	if slices.Contains(po.Outcomes, model.Initial) {
		// A file renamed to p during the run, left as it was before
		// it: as it was under its old name, not as p's old file was.
		var origs []string
		for _, s := range po.States {
			if s.Outcome == model.Initial {
				o, ok := a.before(p, s)
				if !ok {
					return "", nil, false
				}
				origs = append(origs, o)
			}
		}
		words = model.RenamedBeforeRun(words, p, origs)
	}
	if s, found := pickState(po, lossOrder); found {
		w, ok := a.words(p, s)
		if !ok {
			return "", nil, false
		}
		state = stateWith(at, p, s, w)
		// The words name every losing outcome of the path: so does
		// the state.
		for _, o := range po.Outcomes {
			if o.Loses() && slices.Contains(lossOrder, o) {
				state.Outcomes = append(state.Outcomes, o)
			}
		}
	}
	return words, state, true
}

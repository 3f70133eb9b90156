package wire

import (
	"errors"
	"math"
	"strconv"
)

// Explore says what crashsim explore built and checked, in the summary
// of its report: in total and at each crash point, how many crash states
// the model admits there, how many were built and checked, and, where
// there were too many to build them all, which families the states built
// came from. A sampled point is never exhaustive.
type Explore struct {
	Points     int `json:"points"`
	Exhaustive int `json:"exhaustive"` // points whose every state was built
	Sampled    int `json:"sampled"`    // points past maxJoint: families built
	// Admitted is how many joint crash states the model admits over all
	// the points (saturating at 2^62); AdmittedExact false: at least that
	// many.
	Admitted      int64 `json:"admitted"`
	AdmittedExact bool  `json:"admittedExact"`
	Built         int   `json:"built"`    // states built (and hashed)
	Distinct      int   `json:"distinct"` // different trees among them
	Checked       int   `json:"checked"`  // checker runs
	Rejected      int   `json:"rejected"`
	// NotChecked is how many distinct states --max-states left out.
	NotChecked int             `json:"notChecked"`
	Families   ExploreFamilies `json:"families"`
	MaxJoint   int             `json:"maxJoint"`
	Samples    int             `json:"samples"`
	Seed       uint64          `json:"seed"`
	// EveryLine: each tree was checked at every crash point that leaves
	// it, not only at the last.
	EveryLine   bool           `json:"everyLine"`
	CrashPoints []ExplorePoint `json:"crashPoints"`
}

// ExploreFamilies counts the states built at sampled points by family.
type ExploreFamilies struct {
	Predicted int `json:"predicted"`
	Prefix    int `json:"prefix"`
	Drop      int `json:"drop"`
	Torn      int `json:"torn"`
	Size      int `json:"size"`
	Random    int `json:"random"`
}

// ExplorePoint is one crash point of an exploration.
type ExplorePoint struct {
	Line       int      `json:"line"` // 0: before the first event
	Admitted   int64    `json:"admitted"`
	Exact      bool     `json:"exact"`
	Exhaustive bool     `json:"exhaustive"`
	Families   []string `json:"families"` // of a sampled point, in the order built
	Built      int      `json:"built"`
	New        int      `json:"new"`     // distinct trees first built here
	Checked    int      `json:"checked"` // checker runs on states checked at this point
}

// shardOf is the account of the whole run a shard's starts: every shard
// builds every state, and checks only its share, which add counts.
func (x *Explore) shardOf() *Explore {
	w := *x
	w.CrashPoints = append([]ExplorePoint(nil), x.CrashPoints...)
	w.Checked, w.Rejected = 0, 0
	for i := range w.CrashPoints {
		w.CrashPoints[i].Checked = 0
	}
	return &w
}

// add adds a shard's checker runs to the whole run's, refusing a sum
// past the largest int.
func (x *Explore) add(shard *Explore) error {
	if x == nil || shard == nil {
		return nil
	}
	ok := addTo(&x.Checked, shard.Checked) && addTo(&x.Rejected, shard.Rejected)
	for i := range x.CrashPoints {
		if i < len(shard.CrashPoints) {
			ok = ok && addTo(&x.CrashPoints[i].Checked, shard.CrashPoints[i].Checked)
		}
	}
	if !ok {
		return errors.New("the checker runs of the shards add up to more than a report can hold: not the report of a run")
	}
	return nil
}

// addTo adds n (not negative) to *sum unless that passes the largest int.
func addTo(sum *int, n int) bool {
	if n > math.MaxInt-*sum {
		return false
	}
	*sum += n
	return true
}

func (e *Encoder) explore(x *Explore) {
	e.BeginObject()
	e.IntField("points", x.Points)
	e.IntField("exhaustive", x.Exhaustive)
	e.IntField("sampled", x.Sampled)
	e.Key("admitted")
	e.Int64(x.Admitted)
	e.Key("admittedExact")
	e.Bool(x.AdmittedExact)
	e.IntField("built", x.Built)
	e.IntField("distinct", x.Distinct)
	e.IntField("checked", x.Checked)
	e.IntField("rejected", x.Rejected)
	e.IntField("notChecked", x.NotChecked)
	e.Key("families")
	f := &x.Families
	e.BeginObject()
	e.IntField("predicted", f.Predicted)
	e.IntField("prefix", f.Prefix)
	e.IntField("drop", f.Drop)
	e.IntField("torn", f.Torn)
	e.IntField("size", f.Size)
	e.IntField("random", f.Random)
	e.EndObject()
	e.IntField("maxJoint", x.MaxJoint)
	e.IntField("samples", x.Samples)
	e.Key("seed")
	e.value()
	e.b = strconv.AppendUint(e.b, x.Seed, 10)
	e.Key("everyLine")
	e.Bool(x.EveryLine)
	e.Key("crashPoints")
	writeSlice(e, x.CrashPoints, (*Encoder).explorePoint)
	e.EndObject()
}

func (e *Encoder) explorePoint(p *ExplorePoint) {
	e.BeginObject()
	e.IntField("line", p.Line)
	e.Key("admitted")
	e.Int64(p.Admitted)
	e.Key("exact")
	e.Bool(p.Exact)
	e.Key("exhaustive")
	e.Bool(p.Exhaustive)
	e.Key("families")
	e.Strings(p.Families)
	e.IntField("built", p.Built)
	e.IntField("new", p.New)
	e.IntField("checked", p.Checked)
	e.EndObject()
}

package report

// ExploreJSON says what crashsim explore built and checked, in the
// summary of its JSON report: in total and at each crash point, how many
// crash states the model admits there, how many were built and checked,
// and, where there were too many to build them all, which families the
// states built came from. A sampled point is never exhaustive.
type ExploreJSON struct {
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
	EveryLine   bool               `json:"everyLine"`
	CrashPoints []ExplorePointJSON `json:"crashPoints"`
}

// ExploreFamilies counts the states built at sampled points by family.
type ExploreFamilies struct {
	Predicted int `json:"predicted"`
	Prefix    int `json:"prefix"`
	Drop      int `json:"drop"`
	Torn      int `json:"torn"`
	Random    int `json:"random"`
}

// ExplorePointJSON is one crash point of an exploration.
type ExplorePointJSON struct {
	Line       int      `json:"line"` // 0: before the first event
	Admitted   int64    `json:"admitted"`
	Exact      bool     `json:"exact"`
	Exhaustive bool     `json:"exhaustive"`
	Families   []string `json:"families"` // of a sampled point, in the order built
	Built      int      `json:"built"`
	New        int      `json:"new"`     // distinct trees first built here
	Checked    int      `json:"checked"` // checker runs on states checked at this point
}

// mergeExplore adds a shard's checker runs to the whole run's: every
// shard builds every state, and checks its share.
func mergeExplore(whole, shard *ExploreJSON) {
	if whole == nil || shard == nil {
		return
	}
	whole.Checked += shard.Checked
	whole.Rejected += shard.Rejected
	for i := range whole.CrashPoints {
		if i < len(shard.CrashPoints) {
			whole.CrashPoints[i].Checked += shard.CrashPoints[i].Checked
		}
	}
}

package parser

// ArgSet is a set of argument positions of one call: bit i stands for
// argument i, counted from 0 in the order strace prints them (a resumed
// half continues the numbering of its start). Positions from 63 on share
// bit 63.
type ArgSet uint64

// AllArgs holds every position.
const AllArgs = ^ArgSet(0)

// ArgPositions returns the set of the given positions.
func ArgPositions(pos ...int) ArgSet {
	var s ArgSet
	for _, p := range pos {
		s |= bitOf(p)
	}
	return s
}

// Has reports whether position i is in the set.
func (s ArgSet) Has(i int) bool { return s&bitOf(i) != 0 }

func bitOf(i int) ArgSet {
	if i < 0 {
		return 0
	}
	return 1 << min(i, 63)
}

//go:build race

package parser

// raceEnabled: the race detector changes what escapes to the heap, so
// allocation counts mean nothing under it.
const raceEnabled = true

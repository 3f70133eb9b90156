//go:build !linux

package reap

// Without Linux's /proc nothing proves a run is gone: nothing is marked
// or swept.

func OwnDir(string, bool) error              { return nil }
func Disown(string) error                    { return nil }
func FindDirs(string, string) []Leftover     { return nil }
func SweepDirs(string, string, func(string)) {}
func FindGroups() []Leftover                 { return nil }
func SweepGroups(func(string))               {}

//go:build !linux

package reap

import "errors"

// Group is a cgroup: Linux only.
type Group struct{ Dir string }

func NewGroup() (*Group, error) { return nil, errors.New("cgroups need Linux") }

func (*Group) FD() int            { return -1 }
func (*Group) Procs() []Proc      { return nil }
func (*Group) Kill(...int) []Proc { return nil }
func (*Group) Close() error       { return nil }
func killGroup(string)            {}
func removeGroup(string) error    { return nil }

package reap

// A Leftover is what a crashsim run that is gone left behind: a directory
// (FindDirs) or a cgroup (FindGroups).
type Leftover struct {
	Path  string // the directory or cgroup
	Owner int    // the pid of the run that made it
}

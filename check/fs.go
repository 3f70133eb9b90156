package check

// FSOf returns what model.Options.FSOf wants from the mount table the
// trace was recorded under (Options.Mounts): the mount point that holds
// a path (the model takes /var/run and /var/lock where they lead first).
// Nil without a mount table: the model then knows the usual ones itself.
func (o *Options) FSOf() func(string) string {
	if len(o.Mounts) == 0 {
		return nil
	}
	return func(p string) string {
		m, _ := o.mountAt(p)
		return m.Dir
	}
}

// mountAt is the mount of Options.Mounts that holds p: the longest mount
// point above it (the first listed of equal ones). False when none does.
func (o *Options) mountAt(p string) (Mount, bool) {
	best := -1
	for i, m := range o.Mounts {
		if under(p, m.Dir) && (best < 0 || len(m.Dir) > len(o.Mounts[best].Dir)) {
			best = i
		}
	}
	if best < 0 {
		return Mount{}, false
	}
	return o.Mounts[best], true
}

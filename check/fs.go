package check

// FSOf returns what model.Options.FSOf wants from the mount table the
// trace was recorded under (Options.Mounts): the mount point that holds
// a path, with /var/run and /var/lock taken where they lead. Nil without
// a mount table: the model then knows the usual ones itself.
func (o *Options) FSOf() func(string) string {
	if len(o.Mounts) == 0 {
		return nil
	}
	mounts := o.Mounts
	return func(p string) string {
		p = runAlias(p)
		best := ""
		for _, m := range mounts {
			if under(p, m.Dir) && len(m.Dir) >= len(best) {
				best = m.Dir
			}
		}
		return best
	}
}

package model

// Still is a view of a model whose trace is read, for asking it about
// many paths from several goroutines at once (a rule's Finish over a
// trace of many files). Its answers are the model's own, and asking
// changes nothing; where the model would have to bring a retired name or
// inode back to answer (which changes it), Still says so instead (ok
// false), and the caller asks the model itself once no goroutine uses
// the view any more.
//
// A Still is safe for concurrent use as long as nothing else uses the
// model (Apply, Crash and the rest change it, or may).
type Still struct{ m *Model }

// Still returns the model's read-only view.
func (m *Model) Still() Still { return Still{m} }

// name is nameOf without bringing anything back: the live Name of p, nil
// when the trace never named p, and false when p is retired.
func (s Still) name(p string) (*Name, bool) {
	m := s.m
	if n := m.names[p]; n != nil {
		return n, true
	}
	if _, retired := m.restGet(p); retired {
		return nil, false
	}
	return nil, true
}

// CrashReuse is Model.CrashReuse, or false.
func (s Still) CrashReuse(p string, maxStates int, reuse []PathState) (PathOutcomes, bool) {
	n, ok := s.name(p)
	if !ok {
		return PathOutcomes{}, false
	}
	return s.m.crashName(n, p, maxStates, nil, reuse[:0], listStates), true
}

// CrashFirst is Model.CrashFirst, or false in ok.
func (s Still) CrashFirst(p string, maxStates int, want func(PathState) bool) (st PathState, found, ok bool) {
	n, ok := s.name(p)
	if !ok {
		return PathState{}, false, false
	}
	s.m.crashName(n, p, maxStates, func(ps PathState) bool {
		if want(ps) {
			st, found = ps, true
		}
		return found
	}, nil, listStates)
	return st, found, true
}

// NameBeforeRun is Model.NameBeforeRun, or ok false where the state's
// inode was retired (reviving it would change the model).
func (s Still) NameBeforeRun(p string, ps PathState) (string, bool) {
	if ps.Outcome != Initial {
		return "", true
	}
	ino, ok := s.inodeOf(ps)
	if !ok {
		return "", false
	}
	return origName(p, ps, ino), true
}

// inodeOf is the inode of state ps (nil: none), or ok false where it was
// retired: reviving it would change the model.
func (s Still) inodeOf(ps PathState) (ino *Inode, ok bool) {
	m := s.m
	if ps.Inode >= 1 && ps.Inode <= m.inodes.n {
		if ino = m.inodes.get(ps.Inode); ino == nil {
			return nil, false // retired
		}
	}
	return ino, true
}

// StateWords is Model.StateWords, or false.
func (s Still) StateWords(p string, ps PathState) (string, bool) {
	ino, ok := s.inodeOf(ps)
	if !ok {
		return "", false
	}
	return s.m.stateWords(p, ps, ino), true
}

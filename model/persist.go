package model

// The filesystem models' rules for what a sync makes durable besides the
// data and names it covers under posix. model/doc.go gives each rule with
// the crashsim oracle run that shows it.

// syncLogs reports whether a successful fsync (datasync: fdatasync) of
// the file ino writes a log, and so carries more than its own data: ext4's
// journal commit, xfs's log force (see syncCommits), btrfs's log tree
// sync (only for a file with something pending: one already in the log
// with nothing new is skipped, fsync-clean). It is asked before the sync
// makes the file's data durable.
func (m *Model) syncLogs(ino *Inode, datasync bool) bool {
	switch m.opt.Persistence {
	case Ext4, Xfs:
		return m.syncCommits(ino, datasync)
	case Btrfs:
		return ino.pending.len() > 0 || ino.opRefs > 0
	}
	return false
}

// fileSyncRule applies the model's rule for a successful fsync (datasync:
// fdatasync) of the file ino at r, logs as syncLogs said, and returns the
// entry operations it made durable besides posix's (none).
func (m *Model) fileSyncRule(ino *Inode, datasync, logs bool, r Ref) []*EntryOp {
	switch m.opt.Persistence {
	case Ext4, Xfs:
		if !logs {
			return nil
		}
		// The sync commits the running transaction (ext4) or forces the
		// log up to the file's last change (xfs): every earlier entry
		// operation commits with it.
		m.lastCommit = r.Seq
		return m.persistEntries(nil, r.Seq)
	case Btrfs:
		var done []*EntryOp
		if !datasync {
			// The file goes to the log tree with its names and the new
			// directories above it, not the other pending entry
			// operations.
			done = m.persistWhere(r.Seq, func(op *EntryOp) bool {
				for _, c := range op.Changes {
					if c.New == ino || c.Old == ino {
						return true
					}
				}
				return false
			})
			done = append(done, m.persistAncestors(ino, r.Seq)...)
		}
		if logs {
			done = append(done, m.persistLogged(r.Seq)...)
		}
		return done
	}
	return nil
}

// syncCommits reports whether an fsync (datasync: an fdatasync) of ino
// commits ext4's journal or forces xfs's log. Neither does for an inode
// with nothing new to log: ext4 commits the transaction that last changed
// the inode (i_sync_tid, or i_datasync_tid for fdatasync) only if it is
// not committed yet, and xfs forces the log only while the inode is
// pinned in it (for fdatasync, with more than timestamps logged). The
// model counts what must be logged after the last commit:
//
//   - a pending write that grows the file: the sync's own writeback sets
//     the new size, which the log must carry (fsync and fdatasync alike);
//   - a pending truncation or fallocate that changed the size since the
//     last commit (logged at the call);
//   - for fsync, any other pending data op since the last commit (its
//     mtime) and any pending entry operation that names the inode (a
//     pending one is always after the last commit: a commit takes every
//     earlier one); for fdatasync, the inode's pending creation.
//
// Anything else is not counted, so the model never claims a commit that
// did not happen: an fdatasync of a rewrite in place or a second fsync
// with nothing new commits nothing (lsm-manifest, fsync-clean).
func (m *Model) syncCommits(ino *Inode, datasync bool) bool {
	for i := range ino.pending.len() {
		op := ino.pending.at(i)
		after := op.Event.Seq > m.lastCommit
		switch {
		case grows(op):
			return true
		case op.Kind == DataTruncate || op.Kind == DataExtend:
			if after && op.Size != op.SizeBefore {
				return true
			}
		}
		if after && !datasync {
			return true
		}
	}
	if ino.opRefs == 0 {
		return false
	}
	if !datasync {
		return true
	}
	for _, op := range m.pending() {
		if op.Kind == EntryCreate {
			for _, c := range op.Changes {
				if c.New == ino {
					return true
				}
			}
		}
	}
	return false
}

// grows reports whether a pending write makes the file longer than it
// was: past a known size, or appended (O_APPEND) at a size the trace
// never showed.
func grows(op *DataOp) bool {
	if op.Kind != DataWrite || op.Len <= 0 {
		return false
	}
	if op.Off < 0 {
		return true
	}
	return op.SizeBefore >= 0 && op.Size > op.SizeBefore
}

// dirSyncRule applies the model's rule for a successful fsync of the
// directory ino at r, whose entries are dir: it returns the entry
// operations made durable and those the sync covered in the directory.
func (m *Model) dirSyncRule(ino *Inode, dir map[string]bool, r Ref) (persisted, covered []*EntryOp) {
	switch m.opt.Persistence {
	case Ext4, Xfs:
		// ext4 forces a full journal commit for a directory fsync, xfs a
		// log force up to the directory's last change, which holds every
		// earlier one, but only while the directory is pinned in the log:
		// with nothing in it changed since the last force, xfs writes
		// nothing (fsync-clean). What it covered in the directory itself
		// is the same as under posix: rules ask about what the program
		// synced.
		covered = m.pendingIn(dir, r.Seq)
		if m.opt.Persistence == Xfs && len(covered) == 0 && ino.opRefs == 0 {
			return nil, nil
		}
		m.lastCommit = r.Seq
		return m.persistEntries(nil, r.Seq), covered
	case Btrfs:
		// btrfs logs the directory's entries, and the directory's own
		// name when it is new (the oracle saw d survive an fsync of d
		// with "." never synced).
		persisted, covered = m.persistEntriesIn(dir, r.Seq)
		return append(persisted, m.persistAncestors(ino, r.Seq)...), covered
	}
	return m.persistEntriesIn(dir, r.Seq)
}

// persistLogged makes durable what btrfs's log tree holds besides the
// file a sync logs: the name changes of files logged earlier in the same
// transaction. A rename, link or unlink of a file that an fsync or
// fdatasync put in the log updates its entry there (btrfs_log_new_name),
// and the next log sync, for any file, writes it (git-commit-fsync: each
// object renamed after its fsync was durable at the next fsync of another
// file). Files synced only by a sync(2) are not in the log; a transaction
// commit starts a new one.
func (m *Model) persistLogged(upTo int) []*EntryOp {
	return m.persistWhere(upTo, func(op *EntryOp) bool {
		if op.Kind != EntryRename && op.Kind != EntryLink && op.Kind != EntryUnlink {
			return false
		}
		x := op.Node()
		return x != nil && !x.Dir && x.LastSync != nil && x.LastSync.Seq > m.lastCommit && x.LastSync.Seq < op.Event.Seq
	})
}

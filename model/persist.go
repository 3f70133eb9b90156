package model

// The filesystem models' rules for what a sync makes durable besides the
// data and names it covers under posix. model/doc.go gives each rule with
// the crashsim oracle run that shows it.

// syncReach is asked before a successful fsync (datasync: fdatasync) of
// the file ino at r makes its data durable. It returns how far the sync
// writes a log beyond the file's own data: under ext4 and xfs the last
// event whose entry operations it makes durable (see commitReach), under
// btrfs r.Seq when it writes the log tree (a file with something pending;
// one already in the log with nothing new is skipped, fsync-clean); -1
// for none.
func (m *Model) syncReach(ino *Inode, datasync bool, r Ref) int {
	switch m.opt.Persistence {
	case Ext4, Xfs:
		return m.commitReach(ino, datasync, r)
	case Btrfs:
		if len(ino.pending) > 0 || ino.opRefs > 0 {
			return r.Seq
		}
	}
	return -1
}

// fileSyncRule applies the model's rule for a successful fsync or
// fdatasync of the file ino at r, which logs up to reach (syncReach: where
// the two differ), and returns the entry operations it made durable
// besides posix's (none).
func (m *Model) fileSyncRule(ino *Inode, reach int, r Ref) []*EntryOp {
	switch m.opt.Persistence {
	case Ext4, Xfs:
		if reach < 0 {
			return nil
		}
		// The journal commit (ext4) or log force (xfs) carries every
		// entry operation up to the file's last change.
		return m.persistEntries(nil, reach)
	case Btrfs:
		// The file goes to the log tree with its names and the new
		// directories above it, not the other pending entry operations,
		// whether the sync is an fsync or an fdatasync (redis-aof: the
		// temporary manifest, made and fdatasynced, was there while the
		// AOF file created before it was missing; fdatasync-rename: a
		// file renamed and fdatasynced was there under its new name
		// while a file created before the rename was missing).
		done := m.persistWhere(r.Seq, func(op *EntryOp) bool {
			for _, c := range op.Changes {
				if c.New == ino || c.Old == ino {
					return true
				}
			}
			return false
		})
		done = append(done, m.persistAncestors(ino, r.Seq)...)
		if reach >= 0 {
			done = append(done, m.persistLogged(r.Seq)...)
		}
		return done
	}
	return nil
}

// commitReach is how far an fsync (datasync: fdatasync) of ino at r makes
// entry operations durable on ext4 and xfs: up to the file's last change
// that the journal or log must carry, or -1 for none. ext4 waits for the
// commit of the transaction that last changed the inode (i_sync_tid, or
// i_datasync_tid for fdatasync), xfs forces the log up to the inode's
// last logged change (xfs_fsync_seq): either that change is committed
// already, by an earlier commit or one on its own (every 5 s on a
// default ext4 mount), or the sync commits it now. Either way every
// entry operation up to it is durable, and nothing after it is sure to
// be (fsync-old-change). The changes counted, among those not yet synced:
//
//   - a write that grows the file: the sync's own writeback sets the new
//     size, so the sync itself commits, up to r (fsync and fdatasync);
//     but when a sync_file_range came after the write, writeback started
//     there, and any commit since may have logged the size already: then
//     only what came before that sync_file_range is sure (dpkg unpacks
//     a.txt and b.txt, starts their writeback, fsyncs a.txt, renames it
//     into place, fsyncs b.txt: on ext4 the rename was still missing);
//   - a truncation or fallocate that changed the size, at its call;
//   - for fsync, any other write (its mtime) and any entry operation that
//     names the inode; for fdatasync, the inode's creation.
//
// Anything else is not counted: an fdatasync of a rewrite in place or a
// second fsync with nothing new makes no entry operation durable
// (lsm-manifest, fsync-clean). A truncation to the size a file with
// nothing pending has already is no op (Model.truncate), so an fsync
// after it counts no change for it, though ext4 logs the mtime an
// ftruncate sets: the sync then claims less than ext4 does, never more.
func (m *Model) commitReach(ino *Inode, datasync bool, r Ref) int {
	reach := -1
	ops := ino.ops()
	started := -1 // the last sync_file_range of the file, which started its writeback
	if sr := ino.SyncRange(); sr != nil && sr.Seq < r.Seq {
		started = sr.Seq
	}
	for i := range ops.len() {
		op := ops.at(i)
		if op.seq() > r.Seq {
			break // completed while the sync ran (syncCut)
		}
		switch {
		case grows(op) && started > op.seq():
			reach = max(reach, started)
		case grows(op):
			return r.Seq
		case !datasync, (op.Kind == DataTruncate || op.Kind == DataExtend) && op.Size != op.SizeBefore:
			reach = max(reach, op.seq())
		}
	}
	if ino.opRefs == 0 {
		return reach
	}
	for _, op := range m.pending() {
		if op.seq() > r.Seq {
			break
		}
		for _, c := range op.Changes {
			if !datasync && (c.New == ino || c.Old == ino) || op.Kind == EntryCreate && c.New == ino {
				reach = max(reach, op.seq())
			}
		}
	}
	return reach
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
		// ext4 forces a full journal commit for a directory fsync, even
		// with nothing in it changed (fsync-clean). xfs forces the log up
		// to the directory's last change, which holds every earlier one,
		// only while the directory is pinned in the log (with nothing
		// changed since the last force it writes nothing, fsync-clean):
		// as for a file, what is sure is everything up to that change.
		// What it covered in the directory itself is the same as under
		// posix: rules ask about what the program synced.
		covered = m.pendingIn(dir, r.Seq)
		if m.opt.Persistence == Ext4 {
			return m.persistEntries(nil, r.Seq), covered
		}
		// xfs: up to the directory's last change, as for a file.
		reach := -1
		for _, op := range covered {
			reach = max(reach, op.seq())
		}
		if ino.opRefs > 0 {
			for _, op := range m.pending() {
				for _, c := range op.Changes {
					if op.seq() <= r.Seq && (c.New == ino || c.Old == ino) {
						reach = max(reach, op.seq())
					}
				}
			}
		}
		if reach < 0 {
			return nil, nil
		}
		return m.persistEntries(nil, reach), covered
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
		return x != nil && !x.Dir && x.LastSync != nil && x.LastSync.Seq > m.lastCommit && x.LastSync.Seq < op.seq()
	})
}

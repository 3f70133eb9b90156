package model

// opList holds an inode's pending data ops in program order. A program
// that writes a file in small pieces and syncs it once leaves one op per
// write pending, and regrowing one slice of them copied every op several
// times over (most of the time and memory a check of such a trace took);
// here they sit in blocks that, once full, are never copied again.
//
// The Inode keeps the last block itself (Inode.pending) and the full ones
// before it in its inodeMore: a file with a few pending ops, the common
// case, pays for no list of blocks. Inode.ops puts the two together.
type opList struct {
	full [][]DataOp // every one holds opBlock ops
	last []DataOp
}

// opBlock is how many ops a block holds. The first block grows like any
// slice, so a file with a few pending ops costs what it did before.
const opBlock = 256

func (l *opList) len() int { return len(l.full)*opBlock + len(l.last) }

// at returns op i in place.
func (l *opList) at(i int) *DataOp {
	if k := len(l.full) * opBlock; i >= k {
		return &l.last[i-k]
	}
	return &l.full[i/opBlock][i%opBlock]
}

// slice returns the ops in one slice: the list's own block when there is
// one, else a copy.
func (l *opList) slice() []DataOp {
	if len(l.full) == 0 {
		return l.last
	}
	return l.appendTo(nil)
}

func (l *opList) appendTo(dst []DataOp) []DataOp {
	for _, b := range l.full {
		dst = append(dst, b...)
	}
	return append(dst, l.last...)
}

// ops returns the inode's pending data ops.
func (n *Inode) ops() opList {
	if n.more == nil {
		return opList{last: n.pending}
	}
	return opList{full: n.more.fullOps, last: n.pending}
}

// dropPending forgets the pending ops, letting their blocks go.
func (n *Inode) dropPending() {
	n.pending = nil
	if n.more != nil {
		n.more.fullOps = nil
	}
}

// appendOp appends op and returns a pointer to it. Until the first block
// is full a later append can move the ops, as append does; Effect.Data,
// which holds the pointer, is read before that.
func (n *Inode) appendOp(op DataOp) *DataOp {
	if len(n.pending) == opBlock {
		x := n.extra()
		x.fullOps = append(x.fullOps, n.pending)
		n.pending = make([]DataOp, 0, opBlock)
	}
	n.pending = append(n.pending, op)
	return &n.pending[len(n.pending)-1]
}

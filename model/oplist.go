package model

// opList holds an inode's pending data ops in program order. A program
// that writes a file in small pieces and syncs it once leaves one op per
// write pending, and regrowing one slice of them copied every op several
// times over (most of the time and memory a check of such a trace took);
// here they sit in blocks that, once full, are never copied again.
type opList struct {
	blocks [][]DataOp // every block but the last holds opBlock ops
}

// opBlock is how many ops a block holds. The first block grows like any
// slice, so a file with a few pending ops costs what it did before.
const opBlock = 256

func (l *opList) len() int {
	if len(l.blocks) == 0 {
		return 0
	}
	return (len(l.blocks)-1)*opBlock + len(l.blocks[len(l.blocks)-1])
}

// at returns op i in place.
func (l *opList) at(i int) *DataOp { return &l.blocks[i/opBlock][i%opBlock] }

// add appends op and returns a pointer to it. Until the first block is
// full a later add can move the ops, as append does; Effect.Data, which
// holds the pointer, is read before that.
func (l *opList) add(op DataOp) *DataOp {
	if len(l.blocks) == 0 {
		l.blocks = append(l.blocks, nil)
	} else if len(l.blocks[len(l.blocks)-1]) == opBlock {
		l.blocks = append(l.blocks, make([]DataOp, 0, opBlock))
	}
	b := &l.blocks[len(l.blocks)-1]
	*b = append(*b, op)
	return &(*b)[len(*b)-1]
}

// slice returns the ops in one slice: the list's own block when there is
// one, else a copy.
func (l *opList) slice() []DataOp {
	if len(l.blocks) == 1 {
		return l.blocks[0]
	}
	return l.appendTo(nil)
}

func (l *opList) appendTo(dst []DataOp) []DataOp {
	for _, b := range l.blocks {
		dst = append(dst, b...)
	}
	return dst
}

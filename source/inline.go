package source

import (
	"debug/dwarf"
)

// inlined is one function in the chain of calls the compiler inlined at a
// pc, outermost first: the function and the line it calls the next one
// from (for the innermost, Line is 0: the line table says where it is).
type inlined struct {
	Function string
	File     string
	Line     int
}

// inlineChain returns the functions inlined at pc, outermost (the
// function the code belongs to) first, or nil when the DWARF says nothing.
func inlineChain(d *dwarf.Data, pc uint64) []inlined {
	rd := d.Reader()
	cu, err := rd.SeekPC(pc)
	if err != nil || cu == nil {
		return nil
	}
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return nil
	}
	files := lr.Files()
	var chain []inlined
	depth := 0 // nesting below cu of the entries rd returns
	want := 0  // the depth whose children are being searched
	for {
		e, err := rd.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag == 0 {
			depth--
			if depth < want {
				break // left the entry that held pc: done
			}
			continue
		}
		holds := false
		if e.Tag == dwarf.TagSubprogram || e.Tag == dwarf.TagInlinedSubroutine || e.Tag == dwarf.TagLexDwarfBlock {
			if rs, err := d.Ranges(e); err == nil {
				for _, r := range rs {
					if pc >= r[0] && pc < r[1] {
						holds = true
					}
				}
			}
		}
		if !holds {
			if e.Children {
				rd.SkipChildren()
			}
			continue
		}
		switch e.Tag {
		case dwarf.TagSubprogram:
			chain = append(chain, inlined{Function: name(d, e)})
		case dwarf.TagInlinedSubroutine:
			if n := len(chain); n > 0 {
				if f, ok := e.Val(dwarf.AttrCallFile).(int64); ok && f >= 0 && int(f) < len(files) && files[f] != nil {
					chain[n-1].File = files[f].Name
				}
				if l, ok := e.Val(dwarf.AttrCallLine).(int64); ok {
					chain[n-1].Line = int(l)
				}
			}
			chain = append(chain, inlined{Function: name(d, e)})
		}
		if !e.Children {
			break
		}
		depth++
		want = depth
	}
	return chain
}

// name is an entry's function name, following its abstract origin or
// specification when the entry has none of its own.
func name(d *dwarf.Data, e *dwarf.Entry) string {
	for i := 0; i < 4 && e != nil; i++ {
		if n, ok := e.Val(dwarf.AttrName).(string); ok {
			return n
		}
		off, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
		if !ok {
			off, ok = e.Val(dwarf.AttrSpecification).(dwarf.Offset)
		}
		if !ok {
			return ""
		}
		rd := d.Reader()
		rd.Seek(off)
		e, _ = rd.Next()
	}
	return ""
}

package parser

import "strings"

// FlagTable maps symbolic names to bits, for decoding flag arguments printed
// either by name (O_WRONLY|O_CREAT) or as numbers (-X raw: 0x241).
type FlagTable map[string]uint64

// Bits decodes a flag expression: names and numbers joined by '|'. It
// reports false when a part is neither a number nor a name in the table;
// the bits of the parts it knows are still returned.
func (t FlagTable) Bits(text string) (uint64, bool) {
	var bits uint64
	ok := true
	for text != "" {
		part := text
		if k := strings.IndexByte(text, '|'); k >= 0 {
			part, text = text[:k], text[k+1:]
		} else {
			text = ""
		}
		part = strings.TrimSpace(part)
		if n, isNum := parseInt(part); isNum {
			bits |= uint64(n)
			continue
		}
		if b, known := t[part]; known {
			bits |= b
			continue
		}
		ok = false
	}
	return bits, ok
}

// Bits decodes v as a flag set with table t (see FlagTable.Bits).
func (v *Value) Bits(t FlagTable) (uint64, bool) {
	if v.Kind == ValNone {
		return 0, false
	}
	return t.Bits(v.Text)
}

// Int returns v as a number when strace printed one. AT_FDCWD is -100.
func (v *Value) Int() (int64, bool) {
	if v.Kind == ValNumber {
		return parseInt(v.Text)
	}
	if v.Text == "AT_FDCWD" {
		return -100, true
	}
	return 0, false
}

// Field returns the struct field called name, or a zero Value.
func (v *Value) Field(name string) *Value {
	for i := range v.Elems {
		if v.Elems[i].Name == name {
			return &v.Elems[i]
		}
	}
	return &zeroValue
}

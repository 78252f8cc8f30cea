package jsonscan

// Mode is how a single-pass walker reads an object's values, so that one
// walker, with its one switch over member names, is both the fast path and
// the general path of a decoder:
//
//   - Strict (the zero value) is the fast path: strings without escapes,
//     numbers where a number is expected, each member once (Once); on
//     anything else a reader reports not ok and the decoder falls back to
//     the general path, so the fast path never decides a rejection.
//   - Lenient is the general path, equal to walking the object with
//     EachField: every valid value is taken the way an EachField callback
//     takes it (strings unescaped, a value of the wrong kind read as
//     absent, the last of repeated members winning), and not ok means only
//     that the JSON is malformed.
//
// A lenient walk reads the members of one object at a time, as EachField
// does: their values are at depth 1 for SkipValue's limit, so the readers
// take no depth (Skip, for the members a walker does not read, does).
//
// Every reader first reads the common shape, as the strict mode does
// (the bodies of StrRaw, NumOrStr, NumText and ObjKey, so the fast path
// makes one call per value, as it did with those), and looks at the mode
// only when that fails: where the common shape is taken, the lenient
// reading gives the same result, and the fast path pays nothing for the
// general one.
type Mode struct{ Lenient bool }

// Strict and Lenient are the two modes.
var (
	Strict  = Mode{}
	Lenient = Mode{Lenient: true}
)

// Str reads a string value at b[v]: its contents (strict: without
// escapes; lenient: unescaped into a new slice when it has escapes, nil
// when the value is not a string).
func (m Mode) Str(b []byte, v int) (s []byte, j int, ok bool) {
	if v < len(b) && b[v] == '"' {
		j = v + 1
		for j+8 <= len(b) {
			if w := specialBytes(Word(b[j:])); w != 0 {
				j += firstByte(w)
				break
			}
			j += 8
		}
		for j < len(b) {
			c := b[j]
			if c == '"' {
				return b[v+1 : j], j + 1, true
			}
			if c == '\\' || c < 0x20 {
				break
			}
			j++
		}
	}
	if !m.Lenient {
		return nil, 0, false
	}
	if j, ok = Skip(b, v, 1); ok {
		s, _, _ = String(b[v:j], nil)
	}
	return s, j, ok
}

// NumOrStr reads a decimal sent as a number or as a string (venues do
// both): the number's text or the string's contents (lenient: as
// NumOrString takes the raw value, nil for any other kind).
func (m Mode) NumOrStr(b []byte, v int) (s []byte, j int, ok bool) {
	if v < len(b) && b[v] == '"' {
		s, j, ok = StrRaw(b, v)
	} else {
		s, j, ok = NumText(b, v)
	}
	if ok || !m.Lenient {
		return s, j, ok
	}
	if j, ok = Skip(b, v, 1); ok {
		s, _ = NumOrString(b[v:j])
	}
	return s, j, ok
}

// Num reads a number: its text (lenient: the raw value, whatever its kind,
// which the decoder's number parser then refuses when it is not one).
func (m Mode) Num(b []byte, v int) (s []byte, j int, ok bool) {
	if v < len(b) && (b[v] == '-' || b[v] >= '0' && b[v] <= '9') {
		if j, err := SkipNumber(b, v); err == nil {
			return b[v:j], j, true
		}
	}
	if !m.Lenient {
		return nil, 0, false
	}
	return Raw(b, v, 1)
}

// Raw reads any value (validating it) and returns its raw text, in either
// mode.
func Raw(b []byte, v, depth int) (s []byte, j int, ok bool) {
	if j, ok = Skip(b, v, depth); ok {
		s = b[v:j]
	}
	return s, j, ok
}

// Skip skips any value (validating it), in either mode.
func Skip(b []byte, v, depth int) (j int, ok bool) {
	j, err := SkipValue(b, v, depth)
	return j, err == nil
}

// Once reports whether a member (bit) may be read given the members seen
// so far: once when strict, always when lenient (the last one wins).
func (m Mode) Once(seen, bit uint32) bool { return seen&bit == 0 || m.Lenient }

// Key reads `"key":` at or after b[i] and returns the key and the index of
// its value (white space skipped). Strict: a key without escapes (as
// ObjKey). Lenient: any key, raw between its quotes (escapes not decoded),
// as EachField hands it over.
func (m Mode) Key(b []byte, i int) (key []byte, j int, ok bool) {
	i = SkipWS(b, i)
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	if key, j, ok = StrRaw(b, i); !ok {
		if !m.Lenient {
			return nil, 0, false
		}
		e, err := SkipString(b, i)
		if err != nil {
			return nil, 0, false
		}
		key, j = b[i+1:e-1], e
	}
	j = SkipWS(b, j)
	if j >= len(b) || b[j] != ':' {
		return nil, 0, false
	}
	return key, SkipWS(b, j+1), true
}

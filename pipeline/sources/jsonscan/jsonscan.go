// Package jsonscan is the allocation-free JSON scanner the decoders of
// outside input share (venue messages, capture containers, normalized
// trade files, eth_getLogs answers). It validates the structure of what it
// walks (strings, numbers, literals, nesting) and hands out raw value
// slices; callers convert only the fields they use. encoding/json allocates
// a map or struct per message and reflects over it; this scanner does
// neither.
//
// Two ways to walk an object share its primitives:
//
//   - EachField / EachElem call a function per member or element after
//     validating it: the general, reference way, which takes any valid JSON;
//   - the single-pass primitives (ObjOpen, ObjKey, ObjNext, ArrOpen,
//     ArrNext, StrRaw, NumOrStr, NumText) let a decoder walk an object once
//     and parse each value where it stands, without closures; they accept
//     only the common shape (strings without escapes) and report anything
//     else as not ok. A Mode lets one walker do both (see Mode).
package jsonscan

import (
	"errors"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

var ErrJSON = errors.New("malformed json")

const MaxDepth = 64

// SkipWS returns the index of the first non-space byte at or after i.
func SkipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// SkipValue returns the index just past the JSON value starting at b[i].
func SkipValue(b []byte, i, depth int) (int, error) {
	if depth > MaxDepth {
		return 0, ErrJSON
	}
	i = SkipWS(b, i)
	if i >= len(b) {
		return 0, ErrJSON
	}
	switch c := b[i]; {
	case c == '"':
		return SkipString(b, i)
	case c == '{':
		i = SkipWS(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, nil
		}
		for {
			i = SkipWS(b, i)
			if i >= len(b) || b[i] != '"' {
				return 0, ErrJSON
			}
			var err error
			if i, err = SkipString(b, i); err != nil {
				return 0, err
			}
			i = SkipWS(b, i)
			if i >= len(b) || b[i] != ':' {
				return 0, ErrJSON
			}
			if i, err = SkipValue(b, i+1, depth+1); err != nil {
				return 0, err
			}
			i = SkipWS(b, i)
			if i >= len(b) {
				return 0, ErrJSON
			}
			if b[i] == '}' {
				return i + 1, nil
			}
			if b[i] != ',' {
				return 0, ErrJSON
			}
			i++
		}
	case c == '[':
		i = SkipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		for {
			var err error
			if i, err = SkipValue(b, i, depth+1); err != nil {
				return 0, err
			}
			i = SkipWS(b, i)
			if i >= len(b) {
				return 0, ErrJSON
			}
			if b[i] == ']' {
				return i + 1, nil
			}
			if b[i] != ',' {
				return 0, ErrJSON
			}
			i++
		}
	case c == 't':
		return skipLit(b, i, "true")
	case c == 'f':
		return skipLit(b, i, "false")
	case c == 'n':
		return skipLit(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return SkipNumber(b, i)
	}
	return 0, ErrJSON
}

// skipLit returns the index just past the literal lit at b[i].
func skipLit(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, ErrJSON
	}
	return i + len(lit), nil
}

// SkipNumber returns the index just past the JSON number starting at b[i].
func SkipNumber(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	digits := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
		digits++
	}
	if digits == 0 {
		return 0, ErrJSON
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			d++
		}
		if d == 0 {
			return 0, ErrJSON
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			d++
		}
		if d == 0 {
			return 0, ErrJSON
		}
	}
	if i == start {
		return 0, ErrJSON
	}
	return i, nil
}

// SkipString returns the index just past the string starting at b[i] == '"'.
func SkipString(b []byte, i int) (int, error) {
	i++
	for {
		for i+8 <= len(b) { // eight bytes at a time to the first '"', '\\' or control byte
			if m := specialBytes(Word(b[i:])); m != 0 {
				i += firstByte(m)
				break
			}
			i += 8
		}
		if i >= len(b) {
			return 0, ErrJSON
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			i += 2
		case c < 0x20:
			return 0, ErrJSON
		default:
			i++
		}
	}
}

// EachField calls fn for every member of the object b (which must be exactly
// one object, surrounded by optional white space). key is the raw key
// without quotes; val is the raw value. fn returns false to stop early; the
// rest of the object is then not validated.
func EachField(b []byte, fn func(key, val []byte) bool) error {
	i := SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ErrJSON
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return Trailing(b, i+1)
	}
	for {
		i = SkipWS(b, i)
		if i >= len(b) || b[i] != '"' {
			return ErrJSON
		}
		ks := i
		var err error
		if i, err = SkipString(b, i); err != nil {
			return err
		}
		key := b[ks+1 : i-1]
		i = SkipWS(b, i)
		if i >= len(b) || b[i] != ':' {
			return ErrJSON
		}
		vs := SkipWS(b, i+1)
		if i, err = SkipValue(b, vs, 1); err != nil {
			return err
		}
		if !fn(key, b[vs:i]) {
			return nil
		}
		i = SkipWS(b, i)
		if i >= len(b) {
			return ErrJSON
		}
		if b[i] == '}' {
			return Trailing(b, i+1)
		}
		if b[i] != ',' {
			return ErrJSON
		}
		i++
	}
}

// EachElem calls fn for every element of the array b.
func EachElem(b []byte, fn func(val []byte) bool) error {
	i := SkipWS(b, 0)
	if i >= len(b) || b[i] != '[' {
		return ErrJSON
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return Trailing(b, i+1)
	}
	for {
		vs := SkipWS(b, i)
		var err error
		if i, err = SkipValue(b, vs, 1); err != nil {
			return err
		}
		if !fn(b[vs:i]) {
			return nil
		}
		i = SkipWS(b, i)
		if i >= len(b) {
			return ErrJSON
		}
		if b[i] == ']' {
			return Trailing(b, i+1)
		}
		if b[i] != ',' {
			return ErrJSON
		}
		i++
	}
}

// Trailing returns ErrJSON unless b holds only white space from i on.
func Trailing(b []byte, i int) error {
	if SkipWS(b, i) != len(b) {
		return ErrJSON
	}
	return nil
}

// String returns the contents of the raw JSON string v, unescaped into
// buf when it holds escapes. ok is false when v is not a valid string.
func String(v []byte, buf []byte) (s []byte, nbuf []byte, ok bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, buf, false
	}
	in := v[1 : len(v)-1]
	esc := false
	for _, c := range in {
		if c == '\\' {
			esc = true
			break
		}
	}
	if !esc {
		return in, buf, true
	}
	start := len(buf)
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c != '\\' {
			buf = append(buf, c)
			continue
		}
		i++
		if i >= len(in) {
			return nil, buf, false
		}
		switch in[i] {
		case '"', '\\', '/':
			buf = append(buf, in[i])
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, n := hex4(in[i+1:])
			if n < 0 {
				return nil, buf, false
			}
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+2 < len(in) && in[i+1] == '\\' && in[i+2] == 'u' {
				if r2, n2 := hex4(in[i+3:]); n2 >= 0 && r2 >= 0xDC00 && r2 < 0xE000 {
					r = (r-0xD800)<<10 | (r2 - 0xDC00) + 0x10000
					i += 6
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, rune(r))
		default:
			return nil, buf, false
		}
	}
	return buf[start:], buf, true
}

func hex4(b []byte) (int, int) {
	if len(b) < 4 {
		return 0, -1
	}
	r := 0
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | int(c-'A'+10)
		default:
			return 0, -1
		}
	}
	return r, 4
}

// BStr views b as a string for a call that does not retain it (strconv
// parsers: their error values, which would retain it, are dropped at once).
func BStr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// ParseDecimal parses a venue's decimal string (or a JSON number's text) as a
// float64. It rejects NaN, infinities and hex or underscore forms, which
// strconv accepts but no venue sends.
func ParseDecimal(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 64 {
		return 0, false
	}
	if f, ok := FastDecimal(b); ok {
		return f, true
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(BStr(b), 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// ParseInt parses a decimal integer.
func ParseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) <= 18 { // digits only: cannot overflow
		var n int64
		for _, c := range b {
			if c < '0' || c > '9' {
				goto general
			}
			n = n*10 + int64(c-'0')
		}
		return n, true
	}
general:
	n, err := strconv.ParseInt(BStr(b), 10, 64)
	return n, err == nil
}

// NumOrString returns the text of a JSON number, or the contents of a JSON
// string (venues send decimals as strings). Escaped strings are not numbers.
func NumOrString(v []byte) ([]byte, bool) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1], true
	}
	if len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return v, true
	}
	return nil, false
}

// FastDecimal parses digits[.digits] exactly when the digits, without the
// point, form an integer below 2^53 and the fraction has at most 22
// digits: then mantissa and power of ten are exact float64s and their
// quotient is the correctly rounded value, the same float64 strconv.ParseFloat
// returns (Clinger's fast path, which strconv takes first too). ok is false
// for any other form; the caller then uses strconv.
func FastDecimal(b []byte) (float64, bool) {
	var m uint64
	i, nd, frac := 0, 0, -1
	for ; i < len(b); i++ {
		c := b[i]
		if c >= '0' && c <= '9' {
			m = m*10 + uint64(c-'0')
			nd++
			if nd > 19 {
				return 0, false
			}
			continue
		}
		if c == '.' && frac < 0 && i > 0 {
			frac = i
			continue
		}
		return 0, false
	}
	if nd == 0 || m >= 1<<53 {
		return 0, false
	}
	if frac < 0 {
		return float64(m), true
	}
	e := len(b) - frac - 1
	if e == 0 || e > 22 {
		return 0, false
	}
	return float64(m) / pow10[e], true
}

var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// ObjOpen expects '{' at or after b[i] (after white space) and returns the
// index after it and whether the object is empty (then the index is past
// the '}').
func ObjOpen(b []byte, i int) (j int, empty, ok bool) {
	i = SkipWS(b, i)
	if i >= len(b) || b[i] != '{' {
		return 0, false, false
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true, true
	}
	return i, false, true
}

// ObjKey reads `"key":` at or after b[i] and returns the key and the index
// of its value (white space skipped). A key with escapes is not ok.
func ObjKey(b []byte, i int) (key []byte, j int, ok bool) {
	i = SkipWS(b, i)
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	key, j, ok = StrRaw(b, i)
	if !ok {
		return nil, 0, false
	}
	j = SkipWS(b, j)
	if j >= len(b) || b[j] != ':' {
		return nil, 0, false
	}
	return key, SkipWS(b, j+1), true
}

// ObjNext reads the ',' or '}' after a member's value at or after b[i]:
// more is true after ',', false after '}' (then j is past it).
func ObjNext(b []byte, i int) (j int, more, ok bool) {
	i = SkipWS(b, i)
	if i >= len(b) {
		return 0, false, false
	}
	switch b[i] {
	case ',':
		return i + 1, true, true
	case '}':
		return i + 1, false, true
	}
	return 0, false, false
}

// ArrOpen expects '[' at or after b[i]; like ObjOpen.
func ArrOpen(b []byte, i int) (j int, empty, ok bool) {
	i = SkipWS(b, i)
	if i >= len(b) || b[i] != '[' {
		return 0, false, false
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true, true
	}
	return i, false, true
}

// ArrNext reads the ',' or ']' after an element; like ObjNext.
func ArrNext(b []byte, i int) (j int, more, ok bool) {
	i = SkipWS(b, i)
	if i >= len(b) {
		return 0, false, false
	}
	switch b[i] {
	case ',':
		return SkipWS(b, i+1), true, true
	case ']':
		return i + 1, false, true
	}
	return 0, false, false
}

// StrRaw reads the string at b[i] == '"' and returns its contents, which
// must hold no escape (and, being valid JSON, no control character).
func StrRaw(b []byte, i int) (s []byte, j int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	j = i + 1
	for j+8 <= len(b) {
		w := Word(b[j:])
		if m := specialBytes(w); m != 0 {
			j += firstByte(m)
			break
		}
		j += 8
	}
	for j < len(b) {
		c := b[j]
		if c == '"' {
			return b[i+1 : j], j + 1, true
		}
		if c == '\\' || c < 0x20 {
			return nil, 0, false
		}
		j++
	}
	return nil, 0, false
}

// NumOrStr reads what NumOrString accepts at b[i]: the contents of a string
// without escapes, or the text of a number.
func NumOrStr(b []byte, i int) (s []byte, j int, ok bool) {
	if i < len(b) && b[i] == '"' {
		return StrRaw(b, i)
	}
	return NumText(b, i)
}

// NumText reads a JSON number at b[i] and returns its text.
func NumText(b []byte, i int) (s []byte, j int, ok bool) {
	if i >= len(b) || !(b[i] == '-' || b[i] >= '0' && b[i] <= '9') {
		return nil, 0, false
	}
	j, err := SkipNumber(b, i)
	if err != nil {
		return nil, 0, false
	}
	return b[i:j], j, true
}

// Word reads 8 bytes little-endian: the unit of the byte-parallel loops
// (SWAR) here and in the decoders.
func Word(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// Ones and Highs are the byte-parallel constants: 0x01 and 0x80 in every
// byte of a Word.
const (
	Ones  = 0x0101010101010101
	Highs = 0x8080808080808080
)

// specialBytes returns a word whose high bit is set in (at least) the first
// byte of w that is '"', '\\' or below 0x20, and 0 when there is none. Bytes
// >= 0x80 never match.
func specialBytes(w uint64) uint64 {
	q := w ^ ('"' * Ones)
	s := w ^ ('\\' * Ones)
	return ((q - Ones) | (s - Ones) | (w - 0x20*Ones)) &^ w & Highs
}

// firstByte returns the index of the lowest byte whose high bit is set in m.
func firstByte(m uint64) int {
	n := 0
	for m&0x80 == 0 {
		m >>= 8
		n++
	}
	return n
}

// Valid reports whether b is exactly one JSON value (white space around it allowed).
func Valid(b []byte) bool {
	end, err := SkipValue(b, 0, 0)
	return err == nil && SkipWS(b, end) == len(b)
}

// HasKey reports whether the JSON object b has a top-level key.
func HasKey(b []byte, key string) bool {
	found := false
	_ = EachField(b, func(k, _ []byte) bool {
		found = string(k) == key
		return !found
	})
	return found
}

// StringField returns the top-level string field key of the object b, or "".
func StringField(b []byte, key string) string {
	var out string
	_ = EachField(b, func(k, v []byte) bool {
		if string(k) != key {
			return true
		}
		if s, _, ok := String(v, nil); ok {
			out = string(s)
		}
		return false
	})
	return out
}

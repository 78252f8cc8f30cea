package replay

import (
	"errors"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// A small, allocation-free JSON scanner for the hot decoders. It validates
// the structure of what it walks (strings, numbers, literals, nesting) and
// hands out raw value slices; callers convert only the fields they use.
// encoding/json allocates a map or struct per message and reflects over it;
// this scanner does neither (see the Decode benchmarks).

var errJSON = errors.New("malformed json")

const maxDepth = 64

// skipWS returns the index of the first non-space byte at or after i.
func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return 0, errJSON
	}
	i = skipWS(b, i)
	if i >= len(b) {
		return 0, errJSON
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{':
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, nil
		}
		for {
			i = skipWS(b, i)
			if i >= len(b) || b[i] != '"' {
				return 0, errJSON
			}
			var err error
			if i, err = skipString(b, i); err != nil {
				return 0, err
			}
			i = skipWS(b, i)
			if i >= len(b) || b[i] != ':' {
				return 0, errJSON
			}
			if i, err = skipValue(b, i+1, depth+1); err != nil {
				return 0, err
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return 0, errJSON
			}
			if b[i] == '}' {
				return i + 1, nil
			}
			if b[i] != ',' {
				return 0, errJSON
			}
			i++
		}
	case c == '[':
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		for {
			var err error
			if i, err = skipValue(b, i, depth+1); err != nil {
				return 0, err
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return 0, errJSON
			}
			if b[i] == ']' {
				return i + 1, nil
			}
			if b[i] != ',' {
				return 0, errJSON
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
		return skipNumber(b, i)
	}
	return 0, errJSON
}

func skipLit(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, errJSON
	}
	return i + len(lit), nil
}

func skipNumber(b []byte, i int) (int, error) {
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
		return 0, errJSON
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			d++
		}
		if d == 0 {
			return 0, errJSON
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
			return 0, errJSON
		}
	}
	if i == start {
		return 0, errJSON
	}
	return i, nil
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	i++
	for {
		for i+8 <= len(b) { // eight bytes at a time to the first '"', '\\' or control byte
			if m := specialBytes(le64(b[i:])); m != 0 {
				i += firstByte(m)
				break
			}
			i += 8
		}
		if i >= len(b) {
			return 0, errJSON
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			i += 2
		case c < 0x20:
			return 0, errJSON
		default:
			i++
		}
	}
}

// eachField calls fn for every member of the object b (which must be exactly
// one object, surrounded by optional white space). key is the raw key
// without quotes; val is the raw value. fn returns false to stop early; the
// rest of the object is then not validated.
func eachField(b []byte, fn func(key, val []byte) bool) error {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errJSON
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return trailing(b, i+1)
	}
	for {
		i = skipWS(b, i)
		if i >= len(b) || b[i] != '"' {
			return errJSON
		}
		ks := i
		var err error
		if i, err = skipString(b, i); err != nil {
			return err
		}
		key := b[ks+1 : i-1]
		i = skipWS(b, i)
		if i >= len(b) || b[i] != ':' {
			return errJSON
		}
		vs := skipWS(b, i+1)
		if i, err = skipValue(b, vs, 1); err != nil {
			return err
		}
		if !fn(key, b[vs:i]) {
			return nil
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return errJSON
		}
		if b[i] == '}' {
			return trailing(b, i+1)
		}
		if b[i] != ',' {
			return errJSON
		}
		i++
	}
}

// eachElem calls fn for every element of the array b.
func eachElem(b []byte, fn func(val []byte) bool) error {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errJSON
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return trailing(b, i+1)
	}
	for {
		vs := skipWS(b, i)
		var err error
		if i, err = skipValue(b, vs, 1); err != nil {
			return err
		}
		if !fn(b[vs:i]) {
			return nil
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return errJSON
		}
		if b[i] == ']' {
			return trailing(b, i+1)
		}
		if b[i] != ',' {
			return errJSON
		}
		i++
	}
}

func trailing(b []byte, i int) error {
	if skipWS(b, i) != len(b) {
		return errJSON
	}
	return nil
}

// jsonString returns the contents of the raw JSON string v, unescaped into
// buf when it holds escapes. ok is false when v is not a valid string.
func jsonString(v []byte, buf []byte) (s []byte, nbuf []byte, ok bool) {
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

// bstr views b as a string for a call that does not retain it (strconv
// parsers: their error values, which would retain it, are dropped at once).
func bstr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// parseDecimal parses a venue's decimal string (or a JSON number's text) as a
// float64. It rejects NaN, infinities and hex or underscore forms, which
// strconv accepts but no venue sends.
func parseDecimal(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 64 {
		return 0, false
	}
	if f, ok := fastDecimal(b); ok {
		return f, true
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(bstr(b), 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// parseInt parses a decimal integer.
func parseInt(b []byte) (int64, bool) {
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
	n, err := strconv.ParseInt(bstr(b), 10, 64)
	return n, err == nil
}

// numOrString returns the text of a JSON number, or the contents of a JSON
// string (venues send decimals as strings). Escaped strings are not numbers.
func numOrString(v []byte) ([]byte, bool) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1], true
	}
	if len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return v, true
	}
	return nil, false
}

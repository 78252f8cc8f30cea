package fundamentals

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner decodes companyfacts in one pass over the bytes, about four
// times faster than encoding/json (BENCHMARKS.md). It accepts exactly what
// decodeReference (encoding/json) accepts, with the same result; the
// differential tests and FuzzDecode hold it to that for ASCII input. Field
// names match case-insensitively (ASCII), as encoding/json's do.
type scanner struct {
	b     []byte
	i     int
	err   error
	depth int // containers open around the current value
	// strs interns the short strings that repeat across facts (dates,
	// accession numbers, forms, frames): one allocation per distinct value.
	strs map[string]string
}

// intern returns raw as a string, shared with earlier equal ones.
func (s *scanner) intern(raw []byte) string {
	if len(raw) > 32 {
		return string(raw)
	}
	if v, ok := s.strs[string(raw)]; ok {
		return v
	}
	if s.strs == nil {
		s.strs = map[string]string{}
	}
	v := string(raw)
	s.strs[v] = v
	return v
}

const maxDepth = 10000 // encoding/json's nesting limit

func (s *scanner) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("%w: offset %d: %s", ErrMalformed, s.i, fmt.Sprintf(format, args...))
	}
	s.i = len(s.b)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

func (s *scanner) expect(c byte) bool {
	if s.peek() != c {
		if s.i >= len(s.b) {
			s.fail("unexpected end, want %q", c)
		} else {
			s.fail("found %q, want %q", s.b[s.i], c)
		}
		return false
	}
	s.i++
	return true
}

// object iterates the members of an object; f gets each raw key (quotes
// removed, escapes undecoded when raw is true, see key) and reads the
// value. A null instead of the object calls nothing and returns false.
func (s *scanner) object(f func(key []byte, escaped bool)) bool {
	switch s.peek() {
	case 'n':
		s.literal("null")
		return false
	case '{':
	default:
		s.fail("want an object")
		return false
	}
	s.i++
	if s.depth++; s.depth > maxDepth {
		s.fail("nested too deep")
		return true
	}
	defer func() { s.depth-- }()
	if s.peek() == '}' {
		s.i++
		return true
	}
	for s.err == nil {
		if s.peek() != '"' {
			s.fail("want a member name")
			return true
		}
		key, escaped := s.rawString()
		if !s.expect(':') {
			return true
		}
		f(key, escaped)
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			s.fail("want ',' or '}' after a member")
		}
	}
	return true
}

// array iterates the elements of an array. A null instead of the array
// calls nothing and returns false.
func (s *scanner) array(f func()) bool {
	switch s.peek() {
	case 'n':
		s.literal("null")
		return false
	case '[':
	default:
		s.fail("want an array")
		return false
	}
	s.i++
	if s.depth++; s.depth > maxDepth {
		s.fail("nested too deep")
		return true
	}
	defer func() { s.depth-- }()
	if s.peek() == ']' {
		s.i++
		return true
	}
	for s.err == nil {
		f()
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			s.fail("want ',' or ']' after an element")
		}
	}
	return true
}

func (s *scanner) literal(lit string) {
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		s.fail("bad literal")
		return
	}
	s.i += len(lit)
}

// rawString reads a string token at s.i and returns its bytes between the
// quotes, and whether it holds escapes (or bytes that need the decoder:
// invalid UTF-8). Control characters are errors.
func (s *scanner) rawString() ([]byte, bool) {
	s.i++ // opening quote
	start := s.i
	escaped := false
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			return raw, escaped
		case c == '\\':
			escaped = true
			if s.i+1 >= len(s.b) {
				s.fail("unterminated string")
				return nil, false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					s.fail("unterminated string")
					return nil, false
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !isHex(h) {
						s.fail("bad \\u escape")
						return nil, false
					}
				}
				s.i += 6
			default:
				s.fail("bad escape")
				return nil, false
			}
		case c < 0x20:
			s.fail("control character in string")
			return nil, false
		case c >= utf8.RuneSelf:
			escaped = true // decode validates UTF-8
			s.i++
		default:
			s.i++
		}
	}
	s.fail("unterminated string")
	return nil, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// str reads a string value as encoding/json would into a Go string: null
// leaves it unchanged (ok false); any other kind is an error.
func (s *scanner) str(dst *string) {
	switch s.peek() {
	case '"':
		raw, esc := s.rawString()
		if s.err != nil {
			return
		}
		if !esc {
			*dst = s.intern(raw)
		} else {
			*dst = unquote(raw)
		}
	case 'n':
		s.literal("null")
	default:
		s.fail("want a string")
	}
}

// unquote decodes a string body whose escapes rawString checked, like
// encoding/json: invalid UTF-8 bytes and lone surrogates become U+FFFD.
func unquote(raw []byte) string {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			switch raw[i+1] {
			case '"', '\\', '/':
				out = append(out, raw[i+1])
				i += 2
			case 'b':
				out = append(out, '\b')
				i += 2
			case 'f':
				out = append(out, '\f')
				i += 2
			case 'n':
				out = append(out, '\n')
				i += 2
			case 'r':
				out = append(out, '\r')
				i += 2
			case 't':
				out = append(out, '\t')
				i += 2
			case 'u':
				r := hex4(raw[i+2 : i+6])
				i += 6
				if utf16.IsSurrogate(r) {
					if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
						if r2 := hex4(raw[i+2 : i+6]); utf16.DecodeRune(r, r2) != utf8.RuneError {
							r = utf16.DecodeRune(r, r2)
							i += 6
							out = utf8.AppendRune(out, r)
							continue
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			i += size
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
				continue
			}
			out = append(out, raw[i-size:i]...)
		}
	}
	return string(out)
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// number reads a JSON number token and returns its bytes.
func (s *scanner) number() []byte {
	start := s.i
	b := s.b
	i := s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		s.fail("bad number")
		return nil
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.fail("bad number")
			return nil
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.fail("bad number")
			return nil
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	s.i = i
	return b[start:i]
}

// skip reads and discards any value, nested to at most maxDepth levels
// counting the containers around it.
func (s *scanner) skip() {
	var stack []byte // open containers: '{' or '['
	for s.err == nil {
		switch c := s.peek(); {
		case c == '{' || c == '[':
			if s.depth+len(stack)+1 > maxDepth {
				s.fail("nested too deep")
				return
			}
			s.i++
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			if s.peek() == closer {
				s.i++
				break // an empty container is a whole value
			}
			stack = append(stack, c)
			if c == '{' && !s.memberName() {
				return
			}
			continue // read the first member's value or element
		case c == '"':
			s.rawString()
		case c == 't':
			s.literal("true")
		case c == 'f':
			s.literal("false")
		case c == 'n':
			s.literal("null")
		case c == '-' || (c >= '0' && c <= '9'):
			s.number()
		default:
			s.fail("want a value")
			return
		}
		// A value is complete: close containers, or go on to the next one.
	after:
		for s.err == nil {
			if len(stack) == 0 {
				return
			}
			top := stack[len(stack)-1]
			switch c := s.peek(); {
			case c == ',':
				s.i++
				if top == '{' && !s.memberName() {
					return
				}
				break after
			case (c == '}' && top == '{') || (c == ']' && top == '['):
				s.i++
				stack = stack[:len(stack)-1]
			default:
				s.fail("want ',' or the closing bracket")
				return
			}
		}
	}
}

// memberName reads `"name":`.
func (s *scanner) memberName() bool {
	if s.peek() != '"' {
		s.fail("want a member name")
		return false
	}
	s.rawString()
	return s.expect(':')
}

// keyIs reports whether a member name matches a field name the way
// encoding/json matches struct fields (exactly or case-folded).
func keyIs(key []byte, escaped bool, name string) bool {
	if !escaped {
		return len(key) == len(name) && (string(key) == name || bytes.EqualFold(key, []byte(name)))
	}
	return bytes.EqualFold([]byte(unquote(key)), []byte(name))
}

// keyString is a member name as a Go string (map keys).
func keyString(key []byte, escaped bool) string {
	if escaped {
		return unquote(key)
	}
	return string(key)
}

// decodeFast is Decode's scanner: the companyfacts structure read in one
// pass, each fact converted as it is read, everything else skipped.
func decodeFast(b []byte) (*Facts, error) {
	s := &scanner{b: b}
	var cikRaw []byte
	var name string
	var facts map[string]map[string]*conceptAcc
	if s.peek() == 0 {
		s.fail("empty document")
	}
	s.object(func(k []byte, esc bool) {
		switch {
		case keyIs(k, esc, "cik"):
			s.ws()
			start := s.i
			s.skip()
			cikRaw = s.b[start:s.i]
		case keyIs(k, esc, "entityName"):
			s.str(&name)
		case keyIs(k, esc, "facts"):
			if facts == nil {
				facts = map[string]map[string]*conceptAcc{}
			}
			if !s.object(func(tk []byte, tesc bool) { s.taxonomy(facts, keyString(tk, tesc)) }) && s.err == nil {
				facts = nil
			}
		default:
			s.skip()
		}
	})
	if s.err == nil && s.peek() != 0 {
		s.fail("data after the document")
	}
	if s.err != nil {
		return nil, s.err
	}
	return build(cikRaw, name, facts)
}

func (s *scanner) taxonomy(facts map[string]map[string]*conceptAcc, tax string) {
	concepts := map[string]*conceptAcc{}
	if !s.object(func(ck []byte, cesc bool) {
		name := keyString(ck, cesc)
		if s.peek() == 'n' {
			s.literal("null")
			concepts[name] = nil
			return
		}
		ca := &conceptAcc{}
		s.object(func(fk []byte, fesc bool) {
			switch {
			case keyIs(fk, fesc, "label"):
				s.str(&ca.label)
			case keyIs(fk, fesc, "units"):
				if ca.units == nil {
					ca.units = map[string]*unitAcc{}
				}
				if !s.object(func(uk []byte, uesc bool) { s.unit(ca.units, keyString(uk, uesc)) }) && s.err == nil {
					ca.units = nil
				}
			default:
				s.skip()
			}
		})
		concepts[name] = ca
	}) {
		concepts = nil
	}
	facts[tax] = concepts
}

func (s *scanner) unit(units map[string]*unitAcc, unit string) {
	ua := &unitAcc{}
	i := 0
	s.array(func() {
		var rf rawFact
		s.object(func(k []byte, esc bool) { s.factField(&rf, k, esc) })
		if s.err == nil {
			ua.add(i, &rf)
		}
		i++
	})
	units[unit] = ua
}

func (s *scanner) factField(rf *rawFact, k []byte, esc bool) {
	switch {
	case keyIs(k, esc, "start"):
		s.str(&rf.Start)
	case keyIs(k, esc, "end"):
		s.str(&rf.End)
	case keyIs(k, esc, "val"):
		switch c := s.peek(); {
		case c == 'n':
			s.literal("null")
		case c == '"':
			// encoding/json accepts a quoted valid number for a json.Number.
			raw, e := s.rawString()
			v := string(raw)
			if e {
				v = unquote(raw)
			}
			if s.err == nil && !validNumber(v) {
				s.fail("val %q is not a number", v)
			}
			rf.Val = jsonNumber(v)
		case c == '-' || (c >= '0' && c <= '9'):
			rf.Val = jsonNumber(s.number())
		default:
			s.fail("val is not a number")
		}
	case keyIs(k, esc, "accn"):
		s.str(&rf.Accn)
	case keyIs(k, esc, "fy"):
		switch c := s.peek(); {
		case c == 'n':
			s.literal("null") // leaves the field as it is, like encoding/json
		case c == '-' || (c >= '0' && c <= '9'):
			num := s.number()
			n, err := strconv.ParseInt(string(num), 10, 32)
			if err != nil {
				s.fail("fy %q is not an int32", num)
				return
			}
			rf.FY = int32(n)
		default:
			s.fail("fy is not a number")
		}
	case keyIs(k, esc, "fp"):
		s.str(&rf.FP)
	case keyIs(k, esc, "form"):
		s.str(&rf.Form)
	case keyIs(k, esc, "filed"):
		s.str(&rf.Filed)
	case keyIs(k, esc, "frame"):
		s.str(&rf.Frame)
	default:
		s.skip()
	}
}

// validNumber reports whether v is a JSON number.
func validNumber(v string) bool {
	t := &scanner{b: []byte(v)}
	t.number()
	return t.err == nil && t.i == len(v) && len(v) > 0
}

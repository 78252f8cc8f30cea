package replay

import (
	"bytes"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// Single-pass scanning for the fast paths of the trade decoders.
//
// Each venue's trade messages are first walked once by a fast path that
// validates the JSON as it goes and parses every value it needs in the same
// pass (no closures, no second scan of a value, no copy of a string that is
// not kept). A fast path accepts only the common, well-formed shape of a
// trade message: strings without escapes, decimals without exponents,
// every required field present once, a valid trade with a known symbol.
// On anything else it gives up before it has changed the parser's state,
// and the general path (eachField / eachElem, the reference decoder) decodes
// the message and produces the trades or the exact rejection. So the fast
// path never decides what is rejected, and TestFastPathMatchesGeneral checks
// that the two paths give the same records on every capture and under the
// fuzzers.

// objOpen expects '{' at or after b[i] (after white space) and returns the
// index after it and whether the object is empty (then the index is past
// the '}').
func objOpen(b []byte, i int) (j int, empty, ok bool) {
	i = skipWS(b, i)
	if i >= len(b) || b[i] != '{' {
		return 0, false, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true, true
	}
	return i, false, true
}

// objKey reads `"key":` at or after b[i] and returns the key and the index
// of its value (white space skipped). A key with escapes is not ok.
func objKey(b []byte, i int) (key []byte, j int, ok bool) {
	i = skipWS(b, i)
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	key, j, ok = strRaw(b, i)
	if !ok {
		return nil, 0, false
	}
	j = skipWS(b, j)
	if j >= len(b) || b[j] != ':' {
		return nil, 0, false
	}
	return key, skipWS(b, j+1), true
}

// objNext reads the ',' or '}' after a member's value at or after b[i]:
// more is true after ',', false after '}' (then j is past it).
func objNext(b []byte, i int) (j int, more, ok bool) {
	i = skipWS(b, i)
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

// arrOpen expects '[' at or after b[i]; like objOpen.
func arrOpen(b []byte, i int) (j int, empty, ok bool) {
	i = skipWS(b, i)
	if i >= len(b) || b[i] != '[' {
		return 0, false, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true, true
	}
	return i, false, true
}

// arrNext reads the ',' or ']' after an element; like objNext.
func arrNext(b []byte, i int) (j int, more, ok bool) {
	i = skipWS(b, i)
	if i >= len(b) {
		return 0, false, false
	}
	switch b[i] {
	case ',':
		return skipWS(b, i+1), true, true
	case ']':
		return i + 1, false, true
	}
	return 0, false, false
}

// strRaw reads the string at b[i] == '"' and returns its contents, which
// must hold no escape (and, being valid JSON, no control character).
func strRaw(b []byte, i int) (s []byte, j int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	j = i + 1
	for j+8 <= len(b) {
		w := le64(b[j:])
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

// digitsNum reads a JSON number of decimal digits only (no sign, fraction or
// exponent, at most 18 digits) at b[i] and returns its text.
func digitsNum(b []byte, i int) (s []byte, j int, ok bool) {
	j = i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j == i || j-i > 18 {
		return nil, 0, false
	}
	if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
		return nil, 0, false
	}
	return b[i:j], j, true
}

// digitsStr reads a JSON string of decimal digits only (at most 18) at b[i]
// and returns its contents.
func digitsStr(b []byte, i int) (s []byte, j int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	s, j, ok = digitsNum(b, i+1)
	if !ok || j >= len(b) || b[j] != '"' {
		return nil, 0, false
	}
	return s, j + 1, true
}

// decimalVal reads a decimal sent as a string ("65114.20") or as a JSON
// number (67013.0) at b[i] and parses it like parseDecimal.
func decimalVal(b []byte, i int) (f float64, j int, ok bool) {
	if i >= len(b) {
		return 0, 0, false
	}
	var s []byte
	if b[i] == '"' {
		if s, j, ok = strRaw(b, i); !ok {
			return 0, 0, false
		}
	} else {
		var err error
		if j, err = skipNumber(b, i); err != nil {
			return 0, 0, false
		}
		s = b[i:j]
	}
	f, ok = parseDecimal(s)
	return f, j, ok
}

// fastDecimal parses digits[.digits] exactly when the digits, without the
// point, form an integer below 2^53 and the fraction has at most 22
// digits: then mantissa and power of ten are exact float64s and their
// quotient is the correctly rounded value, the same float64 strconv.ParseFloat
// returns (Clinger's fast path, which strconv takes first too). ok is false
// for any other form; the caller then uses strconv.
func fastDecimal(b []byte) (float64, bool) {
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

// fastRFC3339 parses "YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z", the form venues send,
// to Unix ns with the ranges time.Parse checks. ok is false for any other
// form; the caller then uses time.Parse.
func fastRFC3339(b []byte) (int64, bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[len(b)-1] != 'Z' {
		return 0, false
	}
	y, ok1 := num2(b, 0)
	y2, ok2 := num2(b, 2)
	mo, ok3 := num2(b, 5)
	d, ok4 := num2(b, 8)
	h, ok5 := num2(b, 11)
	mi, ok6 := num2(b, 14)
	s, ok7 := num2(b, 17)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) {
		return 0, false
	}
	y = y*100 + y2
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, y) || h > 23 || mi > 59 || s > 59 {
		return 0, false
	}
	ns := 0
	if len(b) > 20 {
		if b[19] != '.' {
			return 0, false
		}
		f := b[20 : len(b)-1]
		if len(f) == 0 || len(f) > 9 {
			return 0, false
		}
		for _, c := range f {
			if c < '0' || c > '9' {
				return 0, false
			}
			ns = ns*10 + int(c-'0')
		}
		for k := len(f); k < 9; k++ {
			ns *= 10
		}
	}
	if y < 1 {
		return 0, false
	}
	return (daysFromCivil(y, mo, d)*86400+int64(h*3600+mi*60+s))*1e9 + int64(ns), true
}

// daysFromCivil returns the days from 1970-01-01 to a date of the proleptic
// Gregorian calendar, year >= 1 (H. Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := m - 3
	if m <= 2 {
		mp = m + 9
	}
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

func num2(b []byte, i int) (int, bool) {
	c0, c1 := b[i]-'0', b[i+1]-'0'
	if c0 > 9 || c1 > 9 {
		return 0, false
	}
	return int(c0)*10 + int(c1), true
}

func daysIn(m, y int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// le64 reads 8 bytes little-endian.
func le64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// specialBytes returns a word whose high bit is set in (at least) the first
// byte of w that is '"', '\\' or below 0x20, and 0 when there is none. Bytes
// >= 0x80 never match.
func specialBytes(w uint64) uint64 {
	q := w ^ ('"' * lo8)
	s := w ^ ('\\' * lo8)
	return ((q - lo8) | (s - lo8) | (w - 0x20*lo8)) &^ w & hi8
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

// tradeSlab is how many trades the fast paths allocate at once.
const tradeSlab = 64

// newTrade returns a zero trade from the parser's slab. The trades of a
// slab are distinct objects the caller owns; one kept trade keeps its slab
// (~13 KB) alive.
func (b *base) newTrade() *schemas.Trade {
	if len(b.slab) == 0 {
		b.slab = make([]schemas.Trade, tradeSlab)
	}
	t := &b.slab[0]
	b.slab = b.slab[1:]
	return t
}

// arenaChunk is the size of the chunks that hold the fast paths' copies of
// trade ids and wallets.
const arenaChunk = 4096

// str returns a copy of s as a string, packed with other copies into a
// shared chunk (never written again once handed out) instead of one
// allocation each.
func (b *base) str(s []byte) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) > arenaChunk/8 {
		return string(s)
	}
	if cap(b.arena)-len(b.arena) < len(s) {
		b.arena = make([]byte, 0, arenaChunk)
	}
	n := len(b.arena)
	b.arena = append(b.arena, s...)
	return bstr(b.arena[n:len(b.arena):len(b.arena)])
}

// recentSyms is how many symbols a parser remembers before its map.
const recentSyms = 4

// symbolFast is symbol with a small cache of the last symbols seen, which
// a trade stream repeats, in front of the maps.
func (b *base) symbolFast(venue string, vsym []byte) symEntry {
	for k := range b.recent {
		e := &b.recent[k]
		if e.venue == venue && e.venueSymbol == string(vsym) {
			return e.symEntry
		}
	}
	e := b.symbol(venue, vsym)
	copy(b.recent[1:], b.recent[:recentSyms-1])
	b.recent[0] = recentSym{venue: venue, symEntry: e}
	return e
}

type recentSym struct {
	venue string
	symEntry
}

// emitFast finishes a fast-path trade as emit does and appends it; it
// returns false, appending nothing, when emit would reject it.
func (b *base) emitFast(out []sources.Record, t *schemas.Trade, sym symEntry) ([]sources.Record, bool) {
	if !sym.ok {
		return out, false
	}
	t.Symbol, t.VenueSymbol = sym.symbol, sym.venueSymbol
	t.Source = b.source
	if t.IngestTimeNs == 0 {
		t.IngestTimeNs = t.EventTimeNs
	}
	if schemas.Validate(t) != nil {
		return out, false
	}
	b.fastTrades++
	return append(out, sources.Record{Trade: t}), true
}

// keep returns s as a string the trade keeps: a copy in the arena on the
// fast path, its own allocation on the general one.
func (b *base) keep(fast bool, s []byte) string {
	if fast {
		return b.str(s)
	}
	return string(s)
}

// symbolOf is symbolFast on the fast path and symbol on the general one.
func (b *base) symbolOf(fast bool, venue string, vsym []byte) symEntry {
	if fast {
		return b.symbolFast(venue, vsym)
	}
	return b.symbol(venue, vsym)
}

// numOrStr reads what numOrString accepts at b[i]: the contents of a string
// without escapes, or the text of a number.
func numOrStr(b []byte, i int) (s []byte, j int, ok bool) {
	if i < len(b) && b[i] == '"' {
		return strRaw(b, i)
	}
	return numText(b, i)
}

// numText reads a JSON number at b[i] and returns its text.
func numText(b []byte, i int) (s []byte, j int, ok bool) {
	if i >= len(b) || !(b[i] == '-' || b[i] >= '0' && b[i] <= '9') {
		return nil, 0, false
	}
	j, err := skipNumber(b, i)
	if err != nil {
		return nil, 0, false
	}
	return b[i:j], j, true
}

// lower returns s lower-cased (ASCII and UTF-8, as bytes.ToLower) as a
// string the trade keeps; on the fast path an ASCII s is lower-cased
// straight into the arena.
func (b *base) lower(fast bool, s []byte) string {
	if !fast {
		return string(bytes.ToLower(s))
	}
	upper := false
	for _, c := range s {
		if c >= 0x80 {
			return string(bytes.ToLower(s))
		}
		upper = upper || c >= 'A' && c <= 'Z'
	}
	if !upper {
		return b.str(s)
	}
	if len(s) > arenaChunk/8 {
		return string(bytes.ToLower(s))
	}
	if cap(b.arena)-len(b.arena) < len(s) {
		b.arena = make([]byte, 0, arenaChunk)
	}
	n := len(b.arena)
	for _, c := range s {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.arena = append(b.arena, c)
	}
	return bstr(b.arena[n:len(b.arena):len(b.arena)])
}

// str2 is str of prefix followed by s.
func (b *base) str2(prefix string, s []byte) string {
	n := len(prefix) + len(s)
	if n > arenaChunk/8 {
		return prefix + string(s)
	}
	if cap(b.arena)-len(b.arena) < n {
		b.arena = make([]byte, 0, arenaChunk)
	}
	k := len(b.arena)
	b.arena = append(append(b.arena, prefix...), s...)
	return bstr(b.arena[k:len(b.arena):len(b.arena)])
}

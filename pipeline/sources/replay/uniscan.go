package replay

import (
	"bytes"
	"encoding/binary"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue"
	"math"
)

// Single-pass row scanners of the Uniswap v3 reader.
//
// csvLogFast and jsonLogFast read the common, well-formed shape of a pool
// log in one pass, without closures and without copying anything but the
// transaction hash (which the trade keeps, into the parser's arena). They
// accept a subset of what csvLog and jsonLog (the reference) accept and,
// on that subset, fill the uniLog exactly as the reference does. On
// anything else (a quoted or padded field, another timestamp layout, an
// escaped JSON string, a duplicate key, an unknown pool, a value the
// reference would reject) they return false before the parser's state
// matters, and parse runs the reference, which makes every rejection. So
// the scanners never decide what is rejected; TestUniswapScanMatchesReference
// and FuzzUniswapLog check that both give the same logs and records.

// csvLogFast is csvLog for a raw-logs row in the canonical column order
// whose fields are unquoted and unpadded except the topics, which must be
// the quoted Python list "['0x..', '0x..']" of plain hex strings. The
// topics and data alias line, which the parse call owns; they are only
// read during the call.
func (p *uniswapParser) csvLogFast(b []byte, l *uniLog) bool {
	// block_number: digits (the header row is left to csvLog), at most 19
	// (below 2^64, so strconv.ParseUint agrees).
	i := 0
	var block uint64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		block = block*10 + uint64(b[i]-'0')
		i++
	}
	if i == 0 || i > 19 || i >= len(b) || b[i] != ',' {
		return false
	}
	i++
	// block_timestamp: exactly "YYYY-MM-DD hh:mm:ss".
	if len(b)-i < 20 || b[i+19] != ',' {
		return false
	}
	ts, ok := venue.DateTimeNs(b[i : i+19])
	if !ok {
		return false
	}
	i += 20
	// transaction_hash.
	k := bytes.IndexByte(b[i:], ',')
	if k < 0 {
		return false
	}
	tx := b[i : i+k]
	if !plainCSVField(tx) {
		return false
	}
	i += k + 1
	// transaction_index: not read, only not quoted (a quoted field may
	// hold commas).
	if i < len(b) && b[i] == '"' {
		return false
	}
	if k = bytes.IndexByte(b[i:], ','); k < 0 {
		return false
	}
	i += k + 1
	// log_index: what strconv.ParseUint(s, 10, 32) takes, unpadded.
	s := i
	var li uint64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-s < 10 {
		li = li*10 + uint64(b[i]-'0')
		i++
	}
	if i == s || li > math.MaxUint32 || i >= len(b) || b[i] != ',' {
		return false
	}
	i++
	// topics: "['0x..', '0x..']", at least one topic, each of [0-9A-Za-z]
	// (so csvLog's trimming and unquoting leave it as it is).
	if len(b)-i < 2 || b[i] != '"' || b[i+1] != '[' {
		return false
	}
	i += 2
	topics := p.topics[:0]
	for {
		if i >= len(b) || b[i] != '\'' {
			return false
		}
		i++
		s = i
		for i < len(b) && alnum[b[i]] {
			i++
		}
		if i == s || i >= len(b) || b[i] != '\'' {
			return false
		}
		topics = append(topics, b[s:i])
		i++
		if i < len(b) && b[i] == ']' {
			i++
			break
		}
		if i >= len(b) || b[i] != ',' {
			return false
		}
		i++
		if i < len(b) && b[i] == ' ' {
			i++
		}
	}
	p.topics = topics
	if len(b)-i < 2 || b[i] != '"' || b[i+1] != ',' {
		return false
	}
	i += 2
	// data: the rest of the row, one unpadded field.
	data := b[i:]
	if !plainCSVField(data) {
		return false
	}
	if bytes.IndexByte(data, ',') >= 0 {
		return false
	}
	l.pool = p.pool
	l.block = block
	l.blockTsNs = ts
	l.logIndex = uint32(li)
	l.topics = topics
	l.data = data
	l.txHash = p.LowerHex(tx)
	return true
}

// plainCSVField reports whether the unquoted CSV field s is its own
// strings.TrimSpace: it is not empty, does not start with a quote and
// starts and ends with a printable ASCII byte other than a space.
func plainCSVField(s []byte) bool {
	if len(s) == 0 || s[0] == '"' {
		return false
	}
	a, z := s[0], s[len(s)-1]
	return a > ' ' && a < 0x7f && z > ' ' && z < 0x7f
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// JSON members jsonLogFast needs, as bits of a set.
const (
	ujAddress = 1 << iota
	ujTopics
	ujData
	ujTimestamp
	ujTxHash
	ujLogIndex
	ujRemoved
	ujBlock
	ujRequired = ujAddress | ujTopics | ujData | ujTimestamp | ujTxHash | ujLogIndex
)

// jsonLogFast is jsonLog for an eth_getLogs element whose members are each
// present once, whose strings have no escapes, whose topics are an array of
// strings, whose address is a known pool's (in any ASCII case) and whose
// blockTimestamp and logIndex are in range. skip is true for a removed
// (reorged out) log. The topics and data alias obj.
func (p *uniswapParser) jsonLogFast(b []byte, l *uniLog) (skip, ok bool) {
	i, empty, ok := js.ObjOpen(b, 0)
	if !ok || empty {
		return false, false
	}
	var addr, data, ts, tx, li, bn []byte
	removed := false
	topics := p.topics[:0]
	seen := 0
	for {
		key, j, ok := js.ObjKey(b, i)
		if !ok {
			return false, false
		}
		bit := 0
		switch string(key) {
		case "address":
			bit = ujAddress
			addr, j, ok = js.StrRaw(b, j)
		case "topics":
			bit = ujTopics
			topics, j, ok = topicsRaw(b, j, topics)
		case "data":
			bit = ujData
			data, j, ok = js.StrRaw(b, j)
		case "blockTimestamp":
			bit = ujTimestamp
			ts, j, ok = js.StrRaw(b, j)
		case "transactionHash":
			bit = ujTxHash
			tx, j, ok = js.StrRaw(b, j)
		case "logIndex":
			bit = ujLogIndex
			li, j, ok = js.StrRaw(b, j)
		case "blockNumber":
			bit = ujBlock
			bn, j, ok = js.StrRaw(b, j)
		case "removed":
			bit = ujRemoved
			switch {
			case skipLitOK(b, j, "true"):
				removed, j = true, j+4
			case skipLitOK(b, j, "false"):
				j += 5
			default:
				ok = false
			}
		default:
			var err error
			j, err = js.SkipValue(b, j, 1)
			ok = err == nil
		}
		if !ok || seen&bit != 0 {
			return false, false
		}
		seen |= bit
		var more bool
		if i, more, ok = js.ObjNext(b, j); !ok {
			return false, false
		}
		if !more {
			break
		}
	}
	if js.Trailing(b, i) != nil || seen&ujRequired != ujRequired {
		return false, false
	}
	p.topics = topics
	if removed {
		return true, true
	}
	pool, found := "", false
	for k := range KnownPools {
		if equalLowerASCII(addr, KnownPools[k].Address) {
			pool, found = KnownPools[k].Address, true
			break
		}
	}
	sec, ok1 := hexUint(ts)
	n, ok2 := hexUint(li)
	if !found || !ok1 || sec > 1<<40 || !ok2 || n > 1<<32-1 {
		return false, false
	}
	l.pool = pool
	l.block, _ = hexUint(bn) // 0 when absent or not a quantity, as jsonLog
	l.blockTsNs = int64(sec) * 1e9
	l.logIndex = uint32(n)
	l.topics = topics
	l.data = data
	l.txHash = p.LowerHex(tx)
	return false, true
}

// topicsRaw reads an array of strings without escapes at b[i], appending
// their contents to topics.
func topicsRaw(b []byte, i int, topics [][]byte) ([][]byte, int, bool) {
	i, empty, ok := js.ArrOpen(b, i)
	if !ok {
		return topics, 0, false
	}
	if empty {
		return topics, i, true
	}
	for {
		var s []byte
		if s, i, ok = js.StrRaw(b, i); !ok {
			return topics, 0, false
		}
		topics = append(topics, s)
		var more bool
		if i, more, ok = js.ArrNext(b, i); !ok {
			return topics, 0, false
		}
		if !more {
			return topics, i, true
		}
	}
}

// skipLitOK reports whether b[i:] starts with the literal lit.
func skipLitOK(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// equalLowerASCII reports whether s lower-cased (ASCII only) is lower, a
// lower-case ASCII string; a non-ASCII s is never equal.
func equalLowerASCII(s []byte, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for k, c := range s {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[k] {
			return false
		}
	}
	return true
}

// alnum marks 0-9, A-Z and a-z.
var alnum = func() (t [256]bool) {
	for i := range t {
		t[i] = isAlnum(byte(i))
	}
	return t
}()

// unhex maps a hex digit (0-9, a-f, A-F) to its value and every other byte
// to 0xff: the set encoding/hex.Decode accepts.
var unhex = func() (t [256]byte) {
	for i := range t {
		c := byte(i)
		switch {
		case c >= '0' && c <= '9':
			t[i] = c - '0'
		case c >= 'a' && c <= 'f':
			t[i] = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			t[i] = c - 'A' + 10
		default:
			t[i] = 0xff
		}
	}
	return t
}()

// decodeHexInto decodes the hex digits src (len(src) == 2*len(dst)) into
// dst and reports whether every byte of src is a hex digit (0-9, a-f,
// A-F), as encoding/hex.Decode does. It reads eight digits at a time
// (SWAR); dst is garbage when it returns false.
func decodeHexInto(dst, src []byte) bool {
	if len(src) != 2*len(dst) {
		panic("BUG: decodeHexInto: len(src) != 2*len(dst)")
	}
	k := 0
	for ; len(src)-2*k >= 16; k += 8 {
		lo, ok1 := hexNibbles8(js.Word(src[2*k:]))
		hi, ok2 := hexNibbles8(js.Word(src[2*k+8:]))
		if !ok1 || !ok2 {
			return false
		}
		binary.LittleEndian.PutUint64(dst[k:], uint64(packNibbles(lo))|uint64(packNibbles(hi))<<32)
	}
	var bad byte
	for ; k < len(dst); k++ {
		a, b := unhex[src[2*k]], unhex[src[2*k+1]]
		bad |= a | b
		dst[k] = a<<4 | b&0x0f
	}
	return bad&0xf0 == 0
}

// packNibbles packs the eight digit values of v (one per byte, the first
// in the lowest) into four bytes, first digit pair in the lowest.
func packNibbles(v uint64) uint32 {
	t := v<<4 | v>>8 // byte 2j: digit 2j << 4 | digit 2j+1
	return uint32(t&0xff | t>>8&0xff00 | t>>16&0xff0000 | t>>24&0xff000000)
}

// hexNibbles8 returns the values of the eight hex digits of w, one per
// byte, and whether all eight are hex digits. Every byte below 0x80 is
// tested for a range by adding a constant that sets its high bit (no
// carry crosses a byte then).
func hexNibbles8(w uint64) (uint64, bool) {
	if w&js.Highs != 0 {
		return 0, false
	}
	digit := (w + (0x80-'0')*js.Ones) &^ (w + (0x7f-'9')*js.Ones)
	l := w | 0x20*js.Ones // A-F to a-f (and nothing else into a-f)
	alpha := (l + (0x80-'a')*js.Ones) &^ (l + (0x7f-'f')*js.Ones)
	if (digit|alpha)&js.Highs != js.Highs {
		return 0, false
	}
	return w&(0x0f*js.Ones) + 9*(w>>6&js.Ones), true
}

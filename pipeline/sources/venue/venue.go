// Package venue is the kit the venue decoders share. Each venue's decoder
// lives in its own package below this one (binance, coinbase, bybit,
// hyperliquid, kraken, uniswap) and is the only place that venue's messages
// are mapped to trades: the live connectors (pipeline/sources/cex,
// pipeline/sources/evmdex) hand it the messages they receive, the capture
// reader (pipeline/sources/replay) frames recorded files and hands it the
// messages they hold.
//
// A decoder embeds Base: the source name stamped on trades, the count of
// valid input that carried no trade, the symbol cache, and the slab and
// arena its fast path takes trades and strings from. Its fast path and its
// general path are one walker per message layout run in two modes
// (jsonscan.Mode): the strict walk takes the common shape in one pass and
// declines anything else, the lenient walk takes any valid input and makes
// every rejection, so the fast path never decides what is rejected.
// Rejections are sources.Record values with a Reason whose first phrase is
// stable ("malformed json", "bad price", "unknown message type", "venue
// error", ...).
package venue

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/symbols"
	"github.com/marketintel/mi/schemas"
)

// Base is what every decoder embeds: the source name stamped on trades,
// the skip counter, a scratch buffer, a cache of normalized symbols, and
// the slab and arena the fast paths take trades and strings from. A
// decoder is not safe for concurrent use.
type Base struct {
	source  string
	skipped uint64
	// Scratch is a buffer a decoder reuses from one unit to the next
	// (unescaped strings).
	Scratch []byte
	syms    map[string]map[string]Sym // venue -> venue symbol -> entry
	recent  [recentSyms]recentSym     // the last symbols seen, newest first
	slab    []schemas.Trade           // trades for the fast paths
	arena   []byte                    // string copies for the fast paths
	// generalOnly turns the fast paths off (tests compare the two paths).
	generalOnly bool
	// FastTrades counts the trades the fast paths decoded.
	FastTrades uint64
}

// SetFastPath turns the decoder's fast path on (the default) or off; with
// it off every unit takes the general path, the reference the tests
// compare the fast path with.
func (b *Base) SetFastPath(on bool) { b.generalOnly = !on }

// FastPath reports whether the fast path is on.
func (b *Base) FastPath() bool { return !b.generalOnly }

// Sym is a venue symbol and its normalized symbol; OK is false when the
// registry does not normalize it.
type Sym struct {
	VenueSymbol string
	Symbol      string
	OK          bool
}

// SetSource sets the source name stamped on trades.
func (b *Base) SetSource(name string) { b.source = name }

// Source returns the source name stamped on trades.
func (b *Base) Source() string { return b.source }

// Skipped returns how many valid units carried no trade so far.
func (b *Base) Skipped() uint64 { return b.skipped }

// Skip counts one valid unit that carried no trade and returns out.
func (b *Base) Skip(out []sources.Record) []sources.Record {
	b.skipped++
	return out
}

// Unskip takes back a Skip (a message first taken as skipped, then
// classified otherwise).
func (b *Base) Unskip() { b.skipped-- }

// Counted counts a valid message that carried no trade (an empty trade
// array: out has no more records than the n it had) as skipped.
func (b *Base) Counted(out []sources.Record, n int) []sources.Record {
	if len(out) == n {
		b.skipped++
	}
	return out
}

// Symbol normalizes a venue symbol through the registry, interning the
// strings so that a long replay allocates them once per symbol.
func (b *Base) Symbol(venue string, vsym []byte) Sym {
	if b.syms == nil {
		b.syms = map[string]map[string]Sym{}
	}
	m := b.syms[venue]
	if m == nil {
		m = map[string]Sym{}
		b.syms[venue] = m
	}
	if e, ok := m[string(vsym)]; ok {
		return e
	}
	e := Sym{VenueSymbol: string(vsym)}
	e.Symbol, e.OK = symbols.Normalize(venue, e.VenueSymbol)
	if len(m) < 1<<16 {
		m[e.VenueSymbol] = e
	}
	return e
}

// Reject returns a rejected record holding a copy of raw.
func Reject(raw []byte, reason string) sources.Record {
	return sources.Record{Raw: append([]byte(nil), raw...), Reason: reason}
}

// Emit stamps the source on t, validates it and appends it, or the rejection
// of raw when it is invalid or its symbol is unknown.
func (b *Base) Emit(out []sources.Record, raw []byte, t *schemas.Trade, sym Sym) []sources.Record {
	if !sym.OK {
		return append(out, Reject(raw, "unknown symbol: "+sym.VenueSymbol))
	}
	t.Symbol, t.VenueSymbol = sym.Symbol, sym.VenueSymbol
	t.Source = b.source
	if t.IngestTimeNs == 0 {
		t.IngestTimeNs = t.EventTimeNs
	}
	if err := schemas.Validate(t); err != nil {
		return append(out, Reject(raw, err.Error()))
	}
	return append(out, sources.Record{Trade: t})
}

// MsToNs converts Unix milliseconds, rejecting values that overflow.
func MsToNs(ms int64) (int64, bool) {
	if ms <= 0 || ms > math.MaxInt64/1_000_000 {
		return 0, false
	}
	return ms * 1e6, true
}

// LocalTsNs converts a capture's local receive timestamp to ns, telling the
// unit by magnitude: ns (>= 1e17), µs (>= 1e14), ms (>= 1e11), else s.
func LocalTsNs(v int64) (int64, bool) {
	switch {
	case v <= 0:
		return 0, false
	case v >= 1e17:
		return v, true
	case v >= 1e14:
		return v * 1e3, true
	case v >= 1e11:
		return v * 1e6, true
	default:
		return v * 1e9, true
	}
}

// SecondsToNs converts a decimal seconds string ("1786309548.6290078")
// exactly to ns, without a float round trip.
func SecondsToNs(b []byte) (int64, bool) {
	ip, fp, _ := strings.Cut(jsonscan.BStr(b), ".")
	if len(ip) == 0 || len(ip) > 11 {
		return 0, false
	}
	sec, ok := jsonscan.ParseInt([]byte(ip))
	if !ok || sec < 0 {
		return 0, false
	}
	var ns int64
	for i := 0; i < 9; i++ {
		ns *= 10
		if i < len(fp) {
			c := fp[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			ns += int64(c - '0')
		}
	}
	for i := 9; i < len(fp); i++ {
		if fp[i] < '0' || fp[i] > '9' {
			return 0, false
		}
	}
	return sec*1e9 + ns, true
}

// RFC3339Ns parses an RFC 3339 time with optional fraction to Unix ns.
func RFC3339Ns(b []byte) (int64, bool) {
	if len(b) < 20 || len(b) > 40 {
		return 0, false
	}
	if ns, ok := fastRFC3339(b); ok {
		y := b[0:4]
		if string(y) < "1970" || string(y) > "2200" {
			return 0, false
		}
		return ns, true
	}
	t, err := time.Parse(time.RFC3339Nano, jsonscan.BStr(b))
	if err != nil {
		return 0, false
	}
	y := t.Year()
	if y < 1970 || y > 2200 {
		return 0, false
	}
	return t.UnixNano(), true
}

// ParseSide maps a venue's spelling of the aggressor side. An empty side is
// UNKNOWN; an unrecognized one is not ok.
func ParseSide(s []byte) (schemas.Side, bool) {
	switch string(s) { // the venues' spellings, without lower-casing a copy
	case "Buy", "BUY", "buy", "B", "b":
		return schemas.Side_SIDE_BUY, true
	case "Sell", "SELL", "sell", "S", "s", "A", "a":
		return schemas.Side_SIDE_SELL, true
	}
	switch strings.ToLower(jsonscan.BStr(s)) {
	case "buy", "b", "bid":
		return schemas.Side_SIDE_BUY, true
	case "sell", "s", "a", "ask":
		return schemas.Side_SIDE_SELL, true
	case "", "unknown":
		return schemas.Side_SIDE_UNKNOWN, true
	}
	return schemas.Side_SIDE_UNKNOWN, false
}

// Opposite returns the other side; UNKNOWN stays UNKNOWN.
func Opposite(s schemas.Side) schemas.Side {
	switch s {
	case schemas.Side_SIDE_BUY:
		return schemas.Side_SIDE_SELL
	case schemas.Side_SIDE_SELL:
		return schemas.Side_SIDE_BUY
	}
	return s
}

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
	return (DaysFromCivil(y, mo, d)*86400+int64(h*3600+mi*60+s))*1e9 + int64(ns), true
}

// DaysFromCivil returns the days from 1970-01-01 to a date of the proleptic
// Gregorian calendar, year >= 1 (H. Hinnant's algorithm).
func DaysFromCivil(y, m, d int) int64 {
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

// num2 reads two decimal digits at b[i].
func num2(b []byte, i int) (int, bool) {
	c0, c1 := b[i]-'0', b[i+1]-'0'
	if c0 > 9 || c1 > 9 {
		return 0, false
	}
	return int(c0)*10 + int(c1), true
}

// daysIn is the number of days of month m of year y.
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

// tradeSlab is how many trades the fast paths allocate at once.
const tradeSlab = 64

// NewTrade returns a zero trade from the decoder's slab. The trades of a
// slab are distinct objects the caller owns; one kept trade keeps its slab
// (~13 KB) alive.
func (b *Base) NewTrade() *schemas.Trade {
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

// Str returns a copy of s as a string, packed with other copies into a
// shared chunk (never written again once handed out) instead of one
// allocation each.
func (b *Base) Str(s []byte) string {
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
	return jsonscan.BStr(b.arena[n:len(b.arena):len(b.arena)])
}

// recentSyms is how many symbols a decoder remembers before its map.
const recentSyms = 4

// SymbolFast is Symbol with a small cache of the last symbols seen, which
// a trade stream repeats, in front of the maps.
func (b *Base) SymbolFast(venue string, vsym []byte) Sym {
	for k := range b.recent {
		e := &b.recent[k]
		if e.venue == venue && e.VenueSymbol == string(vsym) {
			return e.Sym
		}
	}
	e := b.Symbol(venue, vsym)
	copy(b.recent[1:], b.recent[:recentSyms-1])
	b.recent[0] = recentSym{venue: venue, Sym: e}
	return e
}

type recentSym struct {
	venue string
	Sym
}

// EmitFast finishes a fast-path trade as Emit does and appends it; it
// returns false, appending nothing, when Emit would reject it.
func (b *Base) EmitFast(out []sources.Record, t *schemas.Trade, sym Sym) ([]sources.Record, bool) {
	if !sym.OK {
		return out, false
	}
	t.Symbol, t.VenueSymbol = sym.Symbol, sym.VenueSymbol
	t.Source = b.source
	if t.IngestTimeNs == 0 {
		t.IngestTimeNs = t.EventTimeNs
	}
	if schemas.Validate(t) != nil {
		return out, false
	}
	b.FastTrades++
	return append(out, sources.Record{Trade: t}), true
}

// Keep returns s as a string the trade keeps: a copy in the arena on the
// fast path, its own allocation on the general one.
func (b *Base) Keep(fast bool, s []byte) string {
	if fast {
		return b.Str(s)
	}
	return string(s)
}

// SymbolOf is SymbolFast on the fast path and Symbol on the general one.
func (b *Base) SymbolOf(fast bool, venue string, vsym []byte) Sym {
	if fast {
		return b.SymbolFast(venue, vsym)
	}
	return b.Symbol(venue, vsym)
}

// Lower returns s lower-cased (ASCII and UTF-8, as bytes.ToLower) as a
// string the trade keeps; on the fast path an ASCII s is lower-cased
// straight into the arena.
func (b *Base) Lower(fast bool, s []byte) string {
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
		return b.Str(s)
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
	return jsonscan.BStr(b.arena[n:len(b.arena):len(b.arena)])
}

// LowerHex returns s lower-cased as Lower(true, s) does, copying and
// lower-casing an ASCII s into the arena eight bytes at a time: for the
// long hex strings of chains (transaction hashes, addresses).
func (p *Base) LowerHex(s []byte) string {
	if len(s) == 0 || len(s) > arenaChunk/8 {
		return p.Lower(true, s)
	}
	if cap(p.arena)-len(p.arena) < len(s) {
		p.arena = make([]byte, 0, arenaChunk)
	}
	n := len(p.arena)
	dst := p.arena[n : n+len(s)]
	copy(dst, s)
	var hi uint64
	k := 0
	for ; k+8 <= len(dst); k += 8 {
		w := jsonscan.Word(dst[k:])
		hi |= w
		upper := (w + (0x80-'A')*jsonscan.Ones) &^ (w + (0x7f-'Z')*jsonscan.Ones) & jsonscan.Highs
		binary.LittleEndian.PutUint64(dst[k:], w|upper>>2) // 0x80 >> 2 == 'a' - 'A'
	}
	for ; k < len(dst); k++ {
		hi |= uint64(dst[k])
		dst[k] = lowerASCII[dst[k]]
	}
	if hi&jsonscan.Highs != 0 {
		return p.Lower(true, s) // the arena bytes written are not handed out
	}
	p.arena = p.arena[:n+len(s)]
	return jsonscan.BStr(p.arena[n:len(p.arena):len(p.arena)])
}

// lowerASCII maps A-Z to a-z and every other byte to itself.
var lowerASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] += 'a' - 'A'
		}
	}
	return t
}()

// Str2 is Str of prefix followed by s.
func (b *Base) Str2(prefix string, s []byte) string {
	n := len(prefix) + len(s)
	if n > arenaChunk/8 {
		return prefix + string(s)
	}
	if cap(b.arena)-len(b.arena) < n {
		b.arena = make([]byte, 0, arenaChunk)
	}
	k := len(b.arena)
	b.arena = append(append(b.arena, prefix...), s...)
	return jsonscan.BStr(b.arena[k:len(b.arena):len(b.arena)])
}

// maxDetail bounds the venue text quoted in a reason.
const maxDetail = 200

// Text renders a raw JSON value for a reason: strings unescaped, anything
// else as is, cut at maxDetail bytes.
func Text(v []byte) string {
	if s, _, ok := jsonscan.String(v, nil); ok {
		v = s
	}
	if len(v) > maxDetail {
		v = v[:maxDetail]
	}
	return strings.ToValidUTF8(string(v), "?")
}

// UnknownType rejects a message of a type the venue's decoder does not
// know: reason "unknown message type: " and what.
func UnknownType(msg []byte, what string) sources.Record {
	return Reject(msg, "unknown message type: "+what)
}

// VenueError rejects a message in which the venue reports an error:
// reason "venue error: " and detail.
func VenueError(msg []byte, detail string) sources.Record {
	return Reject(msg, "venue error: "+detail)
}

// DateTimeNs parses "YYYY-MM-DD hh:mm:ss" (UTC) to Unix ns as
// time.Parse("2006-01-02 15:04:05", ...) does, for the years 1900-2200
// (well inside the range of UnixNano). ok is false for anything else; the
// caller then uses time.Parse.
func DateTimeNs(b []byte) (int64, bool) {
	if len(b) != 19 || b[4] != '-' || b[7] != '-' || b[10] != ' ' || b[13] != ':' || b[16] != ':' {
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
	if y < 1900 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, y) || h > 23 || mi > 59 || s > 59 {
		return 0, false
	}
	return (DaysFromCivil(y, mo, d)*86400 + int64(h*3600+mi*60+s)) * 1e9, true
}

// TradesFast decodes the array of trade objects at b[i] in one pass with
// scan (a venue's strict trade walker and its fast end of a trade), for
// the fast paths of messages whose trades are an array. It returns false
// at the first element scan does not take.
func TradesFast(b []byte, i int, out []sources.Record, scan func(b []byte, i int, out []sources.Record) ([]sources.Record, int, bool)) ([]sources.Record, int, bool) {
	i, empty, ok := jsonscan.ArrOpen(b, i)
	if !ok {
		return out, 0, false
	}
	for !empty {
		if out, i, ok = scan(b, i, out); !ok {
			return out, 0, false
		}
		var more bool
		if i, more, ok = jsonscan.ArrNext(b, i); !ok {
			return out, 0, false
		}
		empty = !more
	}
	return out, i, true
}

// TradesGeneral decodes the array of trade objects data with trade (the
// general path), each element on its own; false when data is not an
// array, with out as it was.
func TradesGeneral(data []byte, out []sources.Record, trade func(obj []byte, out []sources.Record) []sources.Record) ([]sources.Record, bool) {
	n := len(out)
	if jsonscan.EachElem(data, func(tr []byte) bool {
		out = trade(tr, out)
		return true
	}) != nil {
		return out[:n], false
	}
	return out, true
}

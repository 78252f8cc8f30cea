package replay

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/symbols"
	"github.com/marketintel/mi/schemas"
)

// base holds what every parser shares: the source name stamped on trades,
// the skip counter, a scratch buffer and a cache of normalized symbols.
type base struct {
	source  string
	skipped uint64
	scratch []byte
	syms    map[string]map[string]symEntry // venue -> venue symbol -> entry
	recent  [recentSyms]recentSym          // the last symbols seen, newest first
	slab    []schemas.Trade                // trades for the fast paths
	arena   []byte                         // string copies for the fast paths
	// generalOnly turns the fast paths off (tests compare the two paths).
	generalOnly bool
	fastTrades  uint64 // trades the fast paths decoded
}

type symEntry struct {
	venueSymbol string
	symbol      string
	ok          bool
}

func (b *base) setSource(name string) { b.source = name }

func (b *base) skippedCount() uint64 { return b.skipped }

// symbol normalizes a venue symbol through the registry, interning the
// strings so that a long replay allocates them once per symbol.
func (b *base) symbol(venue string, vsym []byte) symEntry {
	if b.syms == nil {
		b.syms = map[string]map[string]symEntry{}
	}
	m := b.syms[venue]
	if m == nil {
		m = map[string]symEntry{}
		b.syms[venue] = m
	}
	if e, ok := m[string(vsym)]; ok {
		return e
	}
	e := symEntry{venueSymbol: string(vsym)}
	e.symbol, e.ok = symbols.Normalize(venue, e.venueSymbol)
	if len(m) < 1<<16 {
		m[e.venueSymbol] = e
	}
	return e
}

// reject returns a rejected record holding a copy of raw.
func reject(raw []byte, reason string) sources.Record {
	return sources.Record{Raw: append([]byte(nil), raw...), Reason: reason}
}

// emit stamps the source on t, validates it and appends it, or the rejection
// of raw when it is invalid or its symbol is unknown.
func (b *base) emit(out []sources.Record, raw []byte, t *schemas.Trade, sym symEntry) []sources.Record {
	if !sym.ok {
		return append(out, reject(raw, "unknown symbol: "+sym.venueSymbol))
	}
	t.Symbol, t.VenueSymbol = sym.symbol, sym.venueSymbol
	t.Source = b.source
	if t.IngestTimeNs == 0 {
		t.IngestTimeNs = t.EventTimeNs
	}
	if err := schemas.Validate(t); err != nil {
		return append(out, reject(raw, err.Error()))
	}
	return append(out, sources.Record{Trade: t})
}

// msToNs converts Unix milliseconds, rejecting values that overflow.
func msToNs(ms int64) (int64, bool) {
	if ms <= 0 || ms > math.MaxInt64/1_000_000 {
		return 0, false
	}
	return ms * 1e6, true
}

// localTsNs converts a capture's local receive timestamp to ns, telling the
// unit by magnitude: ns (>= 1e17), µs (>= 1e14), ms (>= 1e11), else s.
func localTsNs(v int64) (int64, bool) {
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

// secondsToNs converts a decimal seconds string ("1786309548.6290078")
// exactly to ns, without a float round trip.
func secondsToNs(b []byte) (int64, bool) {
	ip, fp, _ := strings.Cut(bstr(b), ".")
	if len(ip) == 0 || len(ip) > 11 {
		return 0, false
	}
	sec, ok := parseInt([]byte(ip))
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

// rfc3339Ns parses an RFC 3339 time with optional fraction to Unix ns.
func rfc3339Ns(b []byte) (int64, bool) {
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
	t, err := time.Parse(time.RFC3339Nano, bstr(b))
	if err != nil {
		return 0, false
	}
	y := t.Year()
	if y < 1970 || y > 2200 {
		return 0, false
	}
	return t.UnixNano(), true
}

// parseSide maps a venue's spelling of the aggressor side. An empty side is
// UNKNOWN; an unrecognized one is not ok.
func parseSide(s []byte) (schemas.Side, bool) {
	switch string(s) { // the venues' spellings, without lower-casing a copy
	case "Buy", "BUY", "buy", "B", "b":
		return schemas.Side_SIDE_BUY, true
	case "Sell", "SELL", "sell", "S", "s", "A", "a":
		return schemas.Side_SIDE_SELL, true
	}
	switch strings.ToLower(bstr(s)) {
	case "buy", "b", "bid":
		return schemas.Side_SIDE_BUY, true
	case "sell", "s", "a", "ask":
		return schemas.Side_SIDE_SELL, true
	case "", "unknown":
		return schemas.Side_SIDE_UNKNOWN, true
	}
	return schemas.Side_SIDE_UNKNOWN, false
}

// opposite returns the other side; UNKNOWN stays UNKNOWN.
func opposite(s schemas.Side) schemas.Side {
	switch s {
	case schemas.Side_SIDE_BUY:
		return schemas.Side_SIDE_SELL
	case schemas.Side_SIDE_SELL:
		return schemas.Side_SIDE_BUY
	}
	return s
}

// splitCSV splits one CSV line into fields, honouring double quotes (a
// quoted field may hold commas and doubled quotes, not line breaks).
func splitCSV(line string, out []string) []string {
	out = out[:0]
	for {
		if strings.HasPrefix(line, `"`) {
			var sb strings.Builder
			i := 1
			for {
				j := strings.IndexByte(line[i:], '"')
				if j < 0 { // unterminated: take the rest
					sb.WriteString(line[i:])
					return append(out, sb.String())
				}
				sb.WriteString(line[i : i+j])
				i += j + 1
				if i < len(line) && line[i] == '"' {
					sb.WriteByte('"')
					i++
					continue
				}
				break
			}
			out = append(out, sb.String())
			line = line[i:]
			if len(line) == 0 {
				return out
			}
			if line[0] != ',' {
				// Junk after a closing quote: keep it in the next field so
				// the row has a wrong shape and gets rejected.
				return append(out, line)
			}
			line = line[1:]
			continue
		}
		i := strings.IndexByte(line, ',')
		if i < 0 {
			return append(out, line)
		}
		out = append(out, line[:i])
		line = line[i+1:]
	}
}

// columnIndex maps lower-cased header names to their positions.
func columnIndex(cols []string) (map[string]int, error) {
	idx := make(map[string]int, len(cols))
	for i, c := range cols {
		c = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(c, "\ufeff")))
		if c == "" {
			continue
		}
		if _, dup := idx[c]; dup {
			return nil, fmt.Errorf("bad header: duplicate column %q", c)
		}
		idx[c] = i
	}
	return idx, nil
}

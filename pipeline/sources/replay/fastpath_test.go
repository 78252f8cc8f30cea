package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// diffTrade returns the first field in which a and b differ ("" if none);
// floats are compared bit for bit.
func diffTrade(a, b *schemas.Trade) string {
	type f struct {
		name string
		x, y any
	}
	for _, c := range []f{
		{"Venue", a.Venue, b.Venue}, {"VenueKind", a.VenueKind, b.VenueKind}, {"Chain", a.Chain, b.Chain},
		{"Market", a.Market, b.Market}, {"Symbol", a.Symbol, b.Symbol}, {"VenueSymbol", a.VenueSymbol, b.VenueSymbol},
		{"EventTimeNs", a.EventTimeNs, b.EventTimeNs}, {"IngestTimeNs", a.IngestTimeNs, b.IngestTimeNs},
		{"Price", math.Float64bits(a.Price), math.Float64bits(b.Price)},
		{"Size", math.Float64bits(a.Size), math.Float64bits(b.Size)},
		{"NotionalUsd", math.Float64bits(a.NotionalUsd), math.Float64bits(b.NotionalUsd)},
		{"Side", a.Side, b.Side}, {"TradeId", a.TradeId, b.TradeId}, {"LogIndex", a.LogIndex, b.LogIndex},
		{"Wallet", a.Wallet, b.Wallet}, {"Source", a.Source, b.Source},
	} {
		if c.x != c.y {
			return fmt.Sprintf("%s: %v != %v", c.name, c.x, c.y)
		}
	}
	return ""
}

// diffRecords returns why two record lists differ, or "".
func diffRecords(fast, general []sources.Record) string {
	if len(fast) != len(general) {
		return fmt.Sprintf("%d records != %d", len(fast), len(general))
	}
	for i := range fast {
		a, b := fast[i], general[i]
		switch {
		case (a.Trade == nil) != (b.Trade == nil):
			return fmt.Sprintf("record %d: trade %v != %v (%q / %q)", i, a.Trade != nil, b.Trade != nil, a.Reason, b.Reason)
		case a.Trade != nil:
			if d := diffTrade(a.Trade, b.Trade); d != "" {
				return fmt.Sprintf("record %d: %s", i, d)
			}
		case a.Reason != b.Reason || !bytes.Equal(a.Raw, b.Raw):
			return fmt.Sprintf("record %d: reject %q != %q", i, a.Reason, b.Reason)
		}
	}
	return ""
}

// captureParser returns the capture reader of a trades fixture and the
// live protocol and venue of its messages ("" for captures that are not
// WebSocket recordings).
func captureParser(name string) (p interface {
	parser
	setSource(string)
}, proto, venue string) {
	switch {
	case strings.HasPrefix(name, "binance_"):
		p := newBinanceParser(name)
		if p.venue == "binance_coinm" {
			return p, "", "" // MessageParser serves spot and USDⓈ-M only
		}
		return p, "binance", p.venue
	case strings.HasPrefix(name, "cryptofeed_coinbase_legacy"):
		return newCoinbaseParser(), "", "" // the Exchange feed, not Advanced Trade
	case strings.HasPrefix(name, "cryptofeed_coinbase"):
		return newCoinbaseParser(), "coinbase", ""
	case strings.HasPrefix(name, "cryptofeed_bybit_linear"):
		return newBybitParser(), "bybit", "bybit_linear"
	case strings.HasPrefix(name, "hyperliquid"):
		return &hyperliquidParser{}, "hyperliquid", ""
	}
	return nil, "", ""
}

func generalOnly(p parser) {
	switch p := p.(type) {
	case *binanceParser:
		p.generalOnly = true
	case *coinbaseParser:
		p.generalOnly = true
	case *bybitParser:
		p.generalOnly = true
	case *hyperliquidParser:
		p.generalOnly = true
	default:
		panic(fmt.Sprintf("BUG: no general path switch for %T", p))
	}
}

func fastCount(p parser) uint64 {
	switch p := p.(type) {
	case *binanceParser:
		return p.fastTrades
	case *coinbaseParser:
		return p.fastTrades
	case *bybitParser:
		return p.fastTrades
	case *hyperliquidParser:
		return p.fastTrades
	}
	panic(fmt.Sprintf("BUG: no fast path counter for %T", p))
}

// messageOf returns the raw venue message of a capture line: the JSON
// after the timestamp, or the data of a cryptofeed recv record.
func messageOf(line []byte) ([]byte, bool) {
	if bytes.HasPrefix(line, []byte(`{"t"`)) {
		var r struct{ T, Data string }
		if json.Unmarshal(line, &r) == nil && r.T == "recv" {
			return []byte(r.Data), true
		}
		return nil, false
	}
	if _, js, ok := bytes.Cut(line, []byte{' '}); ok {
		return js, true
	}
	return line, true
}

// Every WebSocket capture of the trades fixtures, read by its capture
// reader and, message by message, by its live parser, gives the same
// records (every field of every trade, every rejection) and the same
// skip count with the fast paths as with the general path alone; and the
// fast paths take most trades.
func TestFastPathMatchesGeneral(t *testing.T) {
	entries, err := os.ReadDir(fixtures.Path(t, "trades"))
	if err != nil {
		t.Fatal(err)
	}
	tested := 0
	for _, e := range entries {
		name := e.Name()
		fast, proto, venue := captureParser(name)
		if fast == nil {
			continue
		}
		tested++
		t.Run(name, func(t *testing.T) {
			units := loadUnits(t, "trades/"+name)
			general, _, _ := captureParser(name)
			generalOnly(general)
			var a, b []sources.Record
			trades := 0
			for i, u := range units {
				a = fast.parse(u, a[:0])
				b = general.parse(u, b[:0])
				if d := diffRecords(a, b); d != "" {
					t.Fatalf("capture line %d: %s\n%.300s", i+1, d, u)
				}
				for _, r := range a {
					if r.Trade != nil {
						trades++
					}
				}
			}
			if fast.skippedCount() != general.skippedCount() {
				t.Fatalf("skipped %d != %d", fast.skippedCount(), general.skippedCount())
			}
			if trades == 0 {
				t.Fatal("no trades: the comparison compared nothing")
			}
			if ft := fastCount(fast); ft*10 < uint64(trades)*9 {
				t.Fatalf("the fast path took %d of %d trades", ft, trades)
			}
			if proto == "" {
				return
			}
			mf, err := NewMessageParser(proto, venue, "live")
			if err != nil {
				t.Fatal(err)
			}
			mg, _ := NewMessageParser(proto, venue, "live")
			mg.b.generalOnly = true
			live := 0
			for i, u := range units {
				msg, ok := messageOf(u)
				if !ok {
					continue
				}
				a = mf.Parse(msg, 7, a[:0])
				b = mg.Parse(msg, 7, b[:0])
				if d := diffRecords(a, b); d != "" {
					t.Fatalf("live message %d: %s\n%.300s", i+1, d, msg)
				}
				for _, r := range a {
					if r.Trade != nil {
						live++
					}
				}
			}
			if mf.Skipped() != mg.Skipped() {
				t.Fatalf("live skipped %d != %d", mf.Skipped(), mg.Skipped())
			}
			if live == 0 {
				t.Fatal("no live trades")
			}
			if mf.b.fastTrades*10 < uint64(live)*9 || mg.b.fastTrades != 0 {
				t.Fatalf("the live fast path took %d of %d trades (general: %d)", mf.b.fastTrades, live, mg.b.fastTrades)
			}
			t.Logf("%d capture trades, %d live trades identical", trades, live)
		})
	}
	if tested < 8 {
		t.Fatalf("only %d WebSocket captures found", tested)
	}
}

// refDecimal is parseDecimal as it was before its fast path: strconv only.
func refDecimal(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 64 {
		return 0, false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// refRFC3339 is rfc3339Ns as it was before its fast path: time.Parse only.
func refRFC3339(b []byte) (int64, bool) {
	if len(b) < 20 || len(b) > 40 {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil || t.Year() < 1970 || t.Year() > 2200 {
		return 0, false
	}
	return t.UnixNano(), true
}

func checkDecimal(t *testing.T, s string) {
	got, ok := parseDecimal([]byte(s))
	want, wok := refDecimal([]byte(s))
	if ok != wok || math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("parseDecimal(%q) = %v %v, strconv: %v %v", s, got, ok, want, wok)
	}
}

func checkRFC3339(t *testing.T, s string) {
	got, ok := rfc3339Ns([]byte(s))
	want, wok := refRFC3339([]byte(s))
	if ok != wok || got != want {
		t.Fatalf("rfc3339Ns(%q) = %v %v, time.Parse: %v %v", s, got, ok, want, wok)
	}
}

var decimalSeeds = []string{"61837.63000000", "0.00038028", "65114.20", "1", "0", "00.5", "1.", ".5", "1e5", "-1.5", "+2",
	"9007199254740991", "9007199254740992", "9007199254740993", "0.1234567890123456789012", "123456789.0123456789",
	"0.00000000000000000000001", "1..2", "", "1.7976931348623157e308", "4.9e-324", "12345678901234567890"}

var timeSeeds = []string{"2026-08-09T21:05:42.514318Z", "2024-08-08T23:54:14.250Z", "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z",
	"2024-08-08T24:00:00Z", "2024-08-08T23:60:00Z", "2024-08-08T23:59:60Z", "2024-13-01T00:00:00Z", "1969-12-31T23:59:59.9Z",
	"2200-12-31T23:59:59.999999999Z", "2201-01-01T00:00:00Z", "2024-08-08T23:54:14.1234567891Z", "2024-08-08T23:54:14.Z",
	"2024-08-08T23:54:14+02:00", "2024-08-08t23:54:14Z", "2024-04-31T00:00:00Z", "2000-02-29T12:00:00Z", "1900-02-29T00:00:00Z"}

func TestFastDecimalAndTime(t *testing.T) {
	for _, s := range decimalSeeds {
		checkDecimal(t, s)
	}
	for _, s := range timeSeeds {
		checkRFC3339(t, s)
	}
	for _, s := range []string{"Buy", "BUY", "buy", "bUy", "B", "b", "bid", "BID", "Sell", "SELL", "sell", "S", "s", "A", "a",
		"ask", "Ask", "", "unknown", "UNKNOWN", "x", "buyer"} {
		got, ok := parseSide([]byte(s))
		want, wok := refSide(s)
		if got != want || ok != wok {
			t.Errorf("parseSide(%q) = %v %v, want %v %v", s, got, ok, want, wok)
		}
	}
}

// refSide is parseSide as it was: lower-case, then match.
func refSide(s string) (schemas.Side, bool) {
	switch strings.ToLower(s) {
	case "buy", "b", "bid":
		return schemas.Side_SIDE_BUY, true
	case "sell", "s", "a", "ask":
		return schemas.Side_SIDE_SELL, true
	case "", "unknown":
		return schemas.Side_SIDE_UNKNOWN, true
	}
	return schemas.Side_SIDE_UNKNOWN, false
}

// parseDecimal (with its exact fast path) agrees with strconv.ParseFloat,
// bit for bit, on every input.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range decimalSeeds {
		f.Add(s)
	}
	f.Fuzz(checkDecimal)
}

// rfc3339Ns (with its fast path) agrees with time.Parse on every input.
func FuzzRFC3339(f *testing.F) {
	for _, s := range timeSeeds {
		f.Add(s)
	}
	f.Fuzz(checkRFC3339)
}

// skipString (eight bytes at a time) finds the same end as a byte loop.
func FuzzSkipString(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"b"`, "\"a\x01\"", `"0123456789abcdef\\"x"`, `"unterminated`, `"é"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '"' {
			return
		}
		got, gerr := skipString(b, 0)
		want, werr := -1, errJSON
		for i := 1; i < len(b); i++ {
			c := b[i]
			if c == '"' {
				want, werr = i+1, nil
				break
			}
			if c == '\\' {
				i++
				continue
			}
			if c < 0x20 {
				break
			}
		}
		if (gerr == nil) != (werr == nil) || gerr == nil && got != want {
			t.Fatalf("skipString(%q) = %d %v, want %d %v", b, got, gerr, want, werr)
		}
	})
}

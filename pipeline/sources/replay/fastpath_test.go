package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/venue/binance"
	"github.com/marketintel/mi/pipeline/sources/venue/bybit"
	"github.com/marketintel/mi/pipeline/sources/venue/coinbase"
	"github.com/marketintel/mi/pipeline/sources/venue/hyperliquid"
	"github.com/marketintel/mi/pipeline/sources/venue/venuetest"
)

// diffRecords is venuetest.DiffRecords.
func diffRecords(a, b []sources.Record) string { return venuetest.DiffRecords(a, b) }

// liveDecoder is a venue decoder's side for live messages, with the switch
// between its paths.
type liveDecoder interface {
	Message(msg []byte, ingestNs int64, out []sources.Record) []sources.Record
	Skipped() uint64
	SetFastPath(on bool)
}

// fastPathSwitch is what every capture framer's decoder has.
type fastPathSwitch interface {
	SetFastPath(on bool)
	FastPath() bool
}

// captureParser returns the capture reader of a trades fixture and, for a
// WebSocket recording, a new live decoder of its venue (nil for captures
// whose messages no live connector receives).
func captureParser(name string) (p parser, live func() liveDecoder) {
	switch {
	case strings.HasPrefix(name, "binance_"):
		v := binance.VenueOfName(name)
		if v == binance.COINM {
			return newBinanceCapture(name), nil // the connector serves spot and USDⓈ-M only
		}
		return newBinanceCapture(name), func() liveDecoder { d, _ := binance.New(v, "live"); return d }
	case strings.HasPrefix(name, "cryptofeed_coinbase_legacy"):
		return newCoinbaseCapture(), nil // the Exchange feed, not Advanced Trade
	case strings.HasPrefix(name, "cryptofeed_coinbase"):
		return newCoinbaseCapture(), func() liveDecoder { return coinbase.New("live") }
	case strings.HasPrefix(name, "cryptofeed_bybit_linear"):
		return newBybitCapture(), func() liveDecoder { d, _ := bybit.New(bybit.Linear, "live"); return d }
	case strings.HasPrefix(name, "hyperliquid"):
		return newHyperliquidCapture(), func() liveDecoder { return hyperliquid.New("live") }
	}
	return nil, nil
}

func generalOnly(p parser) {
	sw, ok := p.(fastPathSwitch)
	if !ok {
		panic(fmt.Sprintf("BUG: no fast path switch on %T", p))
	}
	sw.SetFastPath(false)
}

// fastCount returns the trades the fast paths of a capture framer's
// decoder took.
func fastCount(p parser) uint64 {
	switch p := p.(type) {
	case *timestamped:
		switch d := p.recorder.(type) {
		case *binance.Decoder:
			return d.FastTrades
		case *hyperliquid.Decoder:
			return d.FastTrades
		}
	case *coinbaseCapture:
		return p.FastTrades
	case *bybitCapture:
		return p.FastTrades
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
// reader and, message by message, by its venue's live decoder, gives the
// same records (every field of every trade, every rejection) and the same
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
		fast, newLive := captureParser(name)
		if fast == nil {
			continue
		}
		tested++
		t.Run(name, func(t *testing.T) {
			units := loadUnits(t, "trades/"+name)
			general, _ := captureParser(name)
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
			if fast.Skipped() != general.Skipped() {
				t.Fatalf("skipped %d != %d", fast.Skipped(), general.Skipped())
			}
			if trades == 0 {
				t.Fatal("no trades: the comparison compared nothing")
			}
			if ft := fastCount(fast); ft*10 < uint64(trades)*9 {
				t.Fatalf("the fast path took %d of %d trades", ft, trades)
			}
			if newLive == nil {
				return
			}
			mf, mg := newLive(), newLive()
			mg.SetFastPath(false)
			live := 0
			for i, u := range units {
				msg, ok := messageOf(u)
				if !ok {
					continue
				}
				a = mf.Message(msg, 7, a[:0])
				b = mg.Message(msg, 7, b[:0])
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
			ff, fg := fastTradesOf(mf), fastTradesOf(mg)
			if ff*10 < uint64(live)*9 || fg != 0 {
				t.Fatalf("the live fast path took %d of %d trades (general: %d)", ff, live, fg)
			}
			t.Logf("%d capture trades, %d live trades identical", trades, live)
		})
	}
	if tested < 8 {
		t.Fatalf("only %d WebSocket captures found", tested)
	}
}

// fastTradesOf returns the trades a live decoder's fast path took.
func fastTradesOf(d liveDecoder) uint64 {
	switch d := d.(type) {
	case *binance.Decoder:
		return d.FastTrades
	case *coinbase.Decoder:
		return d.FastTrades
	case *bybit.Decoder:
		return d.FastTrades
	case *hyperliquid.Decoder:
		return d.FastTrades
	}
	panic("BUG: no fast path counter for a live decoder")
}

package schemas

import (
	"errors"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
)

func goodTrade() *Trade {
	return &Trade{Venue: "binance", VenueKind: VenueKind_VENUE_KIND_CEX, Symbol: "BTCUSD", VenueSymbol: "BTCUSDT",
		EventTimeNs: 1723161255342000000, Price: 61837.63, Size: 0.02, NotionalUsd: 1236.7526, Side: Side_SIDE_SELL, TradeId: "3735683259"}
}

func TestValidate(t *testing.T) {
	f := func(mutate func(*Trade), want string) {
		t.Helper()
		tr := goodTrade()
		mutate(tr)
		err := Validate(tr)
		if want == "" {
			if err != nil {
				t.Fatalf("want valid, got %v", err)
			}
			return
		}
		if err == nil || !errors.Is(err, ErrInvalidTrade) || !strings.Contains(err.Error(), want) {
			t.Fatalf("want error containing %q wrapping ErrInvalidTrade, got %v", want, err)
		}
	}
	f(func(*Trade) {}, "")
	f(func(t *Trade) { t.Side = Side_SIDE_UNKNOWN }, "")
	f(func(t *Trade) { t.NotionalUsd = 0 }, "")
	f(func(t *Trade) { t.Symbol = "" }, "missing symbol")
	f(func(t *Trade) { t.Venue = "" }, "missing venue")
	f(func(t *Trade) { t.TradeId = "" }, "missing trade id")
	f(func(t *Trade) { t.Price = 0 }, "bad price")
	f(func(t *Trade) { t.Price = -1 }, "bad price")
	f(func(t *Trade) { t.Price = math.NaN() }, "bad price")
	f(func(t *Trade) { t.Price = math.Inf(1) }, "bad price")
	f(func(t *Trade) { t.Size = 0 }, "bad size")
	f(func(t *Trade) { t.Size = math.NaN() }, "bad size")
	f(func(t *Trade) { t.NotionalUsd = -1 }, "bad notional")
	f(func(t *Trade) { t.NotionalUsd = math.Inf(1) }, "bad notional")
	f(func(t *Trade) { t.EventTimeNs = 0 }, "absurd timestamp")
	f(func(t *Trade) { t.EventTimeNs = MaxEventTimeNs }, "absurd timestamp")
	f(func(t *Trade) { t.Side = 7 }, "bad side")
	f(func(t *Trade) { t.VenueKind = 0 }, "bad venue kind")
	f(func(t *Trade) { t.VenueKind = 9 }, "bad venue kind")
	if err := Validate(nil); err == nil {
		t.Fatal("nil trade validated")
	}
}

func TestDedupeKey(t *testing.T) {
	a, b := goodTrade(), goodTrade()
	if string(DedupeKey(nil, a)) != string(DedupeKey(nil, b)) {
		t.Fatal("same trade, different keys")
	}
	b.LogIndex = 1
	if string(DedupeKey(nil, a)) == string(DedupeKey(nil, b)) {
		t.Fatal("log index ignored")
	}
	// Field boundaries are unambiguous.
	c, d := goodTrade(), goodTrade()
	c.Venue, c.TradeId = "ab", "c"
	d.Venue, d.TradeId = "a", "bc"
	if string(DedupeKey(nil, c)) == string(DedupeKey(nil, d)) {
		t.Fatal("venue and trade id run together")
	}
}

func TestNames(t *testing.T) {
	f := func(got, want string) {
		t.Helper()
		if got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	f(SideName(Side_SIDE_BUY), "BUY")
	f(SideName(Side_SIDE_SELL), "SELL")
	f(SideName(Side_SIDE_UNKNOWN), "UNKNOWN")
	f(SideName(9), "UNKNOWN")
	f(VenueKindName(VenueKind_VENUE_KIND_CEX), "cex")
	f(VenueKindName(VenueKind_VENUE_KIND_ONCHAIN_DEX), "onchain_dex")
	f(VenueKindName(VenueKind_VENUE_KIND_SOLANA_DEX), "solana_dex")
	f(VenueKindName(0), "unknown")
	for _, w := range Windows {
		if _, ok := WindowSeconds(w); !ok {
			t.Fatalf("window %s has no length", w)
		}
	}
	if _, ok := WindowSeconds("2m"); ok {
		t.Fatal("2m accepted")
	}
}

// FuzzTradeRecord decodes arbitrary bytes as a record of mi.trades.v1 the way
// the operator loop does: decoding may fail, but neither it nor Validate may
// panic, and a trade that validates has finite positive numbers.
func FuzzTradeRecord(f *testing.F) {
	good, _ := proto.Marshal(goodTrade())
	f.Add(good)
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0x01})
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, b []byte) {
		var tr Trade
		if proto.Unmarshal(b, &tr) != nil {
			return
		}
		if Validate(&tr) == nil {
			if !(tr.Price > 0) || !(tr.Size > 0) || math.IsInf(tr.Price, 0) || math.IsInf(tr.Size, 0) || !(tr.NotionalUsd >= 0) {
				t.Fatalf("invalid numbers validated: %+v", &tr)
			}
		}
	})
}

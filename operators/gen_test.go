package operators

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/marketintel/mi/schemas"
)

// genVenue is a venue of the generated market.
type genVenue struct {
	name, chain string
	kind        schemas.VenueKind
	tick        time.Duration // event times are multiples of this (block time on chains)
	lag         time.Duration // how far behind the newest trade its trades arrive, at most
}

var genVenues = []genVenue{
	{name: "binance", kind: cex, tick: time.Millisecond, lag: 2 * time.Second},
	{name: "coinbase", kind: cex, tick: time.Millisecond, lag: 3 * time.Second},
	{name: "okx", kind: cex, tick: time.Millisecond, lag: time.Second},
	{name: "uniswap_v3", chain: "ethereum", kind: evm, tick: 12 * time.Second, lag: 20 * time.Second},
	{name: "aerodrome", chain: "base", kind: evm, tick: 2 * time.Second, lag: 10 * time.Second},
	{name: "raydium", chain: "solana", kind: solana, tick: 400 * time.Millisecond, lag: 5 * time.Second},
}

// genOptions shape a generated trade sequence.
type genOptions struct {
	seed     uint64
	n        int           // trades
	symbols  int           // distinct symbols
	step     time.Duration // event time advance per trade
	dupEvery int           // every dupEvery-th trade repeats an earlier one (0: never)
	oddEvery int           // every oddEvery-th trade is late, future or invalid (0: never)
}

// genTrades returns a deterministic, realistic mix of trades: symbols with
// random-walk prices and heavy-tailed sizes, venues of every kind with their
// own block times and lags (so arrival order differs from event order), and,
// if asked, duplicates, late, future and invalid trades.
func genTrades(o genOptions) []*schemas.Trade {
	rng := rand.New(rand.NewPCG(o.seed, 0x5eed))
	price := make([]float64, o.symbols)
	for i := range price {
		price[i] = math.Pow(10, rng.Float64()*6-2) // $0.01 .. $10k
	}
	out := make([]*schemas.Trade, 0, o.n)
	now := testBase
	for i := range o.n {
		now += int64(o.step)
		if o.dupEvery > 0 && i%o.dupEvery == o.dupEvery-1 && len(out) > 0 {
			out = append(out, cloneTrade(out[len(out)-1-rng.IntN(min(len(out), 50))]))
			continue
		}
		s := rng.IntN(o.symbols)
		// Zipf-ish popularity: low symbol numbers trade more.
		if rng.IntN(2) == 0 {
			s = rng.IntN(max(1, o.symbols/5))
		}
		v := genVenues[rng.IntN(len(genVenues))]
		ns := now - rng.Int64N(int64(v.lag)+1)
		ns -= ns % int64(v.tick)
		price[s] *= math.Exp(rng.NormFloat64() * 0.0005)
		size := math.Exp(rng.NormFloat64()*1.5) * 100 / price[s] // ~$100 median, heavy tail
		t := &schemas.Trade{
			Venue:        v.name,
			VenueKind:    v.kind,
			Chain:        v.chain,
			Market:       "m",
			Symbol:       fmt.Sprintf("SYM%03d", s),
			EventTimeNs:  ns,
			IngestTimeNs: now,
			Price:        price[s],
			Size:         size,
			NotionalUsd:  price[s] * size,
			Side:         schemas.Side(rng.IntN(3)),
			TradeId:      fmt.Sprintf("%s-%d", v.name, i),
		}
		if v.kind != cex {
			t.LogIndex = uint32(rng.IntN(4))
		}
		if o.oddEvery > 0 && i%o.oddEvery == o.oddEvery-1 {
			switch rng.IntN(4) {
			case 0:
				t.EventTimeNs -= int64(45 * time.Second) // late for every kind
			case 1:
				t.EventTimeNs += int64(3 * time.Hour) // future
			case 2:
				t.Price = -1 // invalid
			case 3:
				t.NotionalUsd = 2e15 // out of range
			}
		}
		out = append(out, t)
	}
	return out
}

func cloneTrade(t *schemas.Trade) *schemas.Trade {
	return &schemas.Trade{
		Venue: t.Venue, VenueKind: t.VenueKind, Chain: t.Chain, Market: t.Market, Symbol: t.Symbol,
		VenueSymbol: t.VenueSymbol, EventTimeNs: t.EventTimeNs, IngestTimeNs: t.IngestTimeNs, Price: t.Price,
		Size: t.Size, NotionalUsd: t.NotionalUsd, Side: t.Side, TradeId: t.TradeId, LogIndex: t.LogIndex,
		Wallet: t.Wallet, Source: t.Source,
	}
}

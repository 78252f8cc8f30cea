package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/marketintel/mi/query"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/views"
)

// cmdBenchServe serves the API over views loaded with synthetic documents of
// --symbols symbols in every window, without a paywall, for load tests with
// wrk (BENCHMARKS.md). The documents are fresh as of start and seeded, so
// every run serves the same bodies.
func cmdBenchServe(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mi bench serve", flag.ContinueOnError)
	n := fs.Int("symbols", 1000, "symbols to load")
	addr := fs.String("http-addr", "127.0.0.1:8080", "HTTP listen address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 1 || *n > 100_000 {
		return fmt.Errorf("cannot use --symbols %d: accepted range 1 to 100000", *n)
	}
	v := views.New()
	now := time.Now()
	rng := rand.New(rand.NewPCG(1, 2))
	signals := []string{"BULLISH", "BEARISH", "NEUTRAL"}
	for i := range *n {
		sym := fmt.Sprintf("S%05dUSD", i)
		if i == 0 {
			sym = "BTCUSD"
		}
		for _, w := range schemas.Windows {
			ts := now.Add(-time.Duration(rng.IntN(2000)) * time.Millisecond).UnixNano()
			bp := rng.Float64() * 100
			vol := 1e3 + rng.Float64()*1e7
			v.Apply(&schemas.IntelligenceDocument{
				Id: sym + "|" + w + "|" + fmt.Sprint(ts), Symbol: sym, Window: w,
				Price: 1 + rng.Float64()*1e4, Volume: vol, BuyVolume: vol * bp / 100, SellVolume: vol * (100 - bp) / 100,
				BuyPressure: bp, PriceChangePercent: rng.NormFloat64(), MomentumScore: rng.Float64() * 100,
				ActivityScore: rng.Float64() * 100, AnomalyScore: rng.Float64() * 100, ConfidenceScore: rng.Float64() * 100,
				TradeCount: int64(1 + rng.IntN(2000)), Signal: signals[rng.IntN(3)], SignalStrength: "MEDIUM",
				DominantSide: "BUY", EventType: "NORMAL", LifecycleState: "PERSISTING", TimestampNs: ts,
				LastTradeTimeNs: ts, BaselineSamples: 48, BaselineReady: true,
			})
		}
	}
	srv := query.New(query.Deps{Views: v, Version: version})
	errc := make(chan error, 1)
	go func() { errc <- listenError(srv.Listen(*addr), *addr, "--http-addr", "HTTP_ADDR") }()
	fmt.Printf("serving %d symbols × %d windows on %s\n", *n, len(schemas.Windows), *addr)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}

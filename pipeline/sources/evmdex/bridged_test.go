package evmdex

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/uniswaptest"
	"github.com/marketintel/mi/schemas"
)

// TestConnectorBridgedStablecoin follows a configured pool whose tokens the
// symbol registry does not list — PTT/USDC.e on a simulated chain named
// polygon — and yields its swaps as PTTUSD trades quoted in USD.
func TestConnectorBridgedStablecoin(t *testing.T) {
	b := uniswaptest.DeployBridged(t)
	src, err := New(Config{ChainConfig: ChainConfig{Chain: "polygon", RPC: b.Chain.URL},
		Pools:      []PoolConfig{{Chain: "polygon", Address: b.Pool.Address.Hex(), Name: "PTT/USDC.e 0.3%"}},
		StartBlock: 1, EndBlock: b.V3.Head(t), NoSnapshots: true, MinBackoff: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var trades []*schemas.Trade
	for {
		r, err := src.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Reason != "" && !strings.HasPrefix(r.Reason, ReasonRetracted) {
			t.Fatalf("rejected: %s", r.Reason)
		}
		if r.Trade != nil {
			trades = append(trades, r.Trade)
		}
	}
	if len(trades) != 2 || trades[0].Side != schemas.Side_SIDE_SELL || trades[1].Side != schemas.Side_SIDE_BUY {
		t.Fatalf("trades %v", trades)
	}
	for _, tr := range trades {
		if tr.Symbol != "PTTUSD" || tr.VenueSymbol != "PTT/USDC.e" || tr.Chain != "polygon" || tr.Price < 1.99 || tr.Price > 2.01 {
			t.Fatalf("trade %v", tr)
		}
	}
}

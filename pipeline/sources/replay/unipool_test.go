package replay

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/internal/uniswaptest"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/venue/uniswap"
	"github.com/marketintel/mi/schemas"
)

func TestUniswapResolvedPool(t *testing.T) {
	// A new pool of fresh tokens, on a simulated chain standing in for
	// Polygon, recorded as eth_getLogs answers it.
	b := uniswaptest.DeployBridged(t)
	path, ch, pool, sw, pttIs0 := b.LogsPath, b.Chain, b.Pool, b.Swaps, b.PTTIs0
	paddr := strings.ToLower(pool.Address.Hex())

	// Without a chain configured, the pool is unknown (as before).
	old := readAll(t, path)
	// Initialize, Mint and two Swaps: each rejected.
	if len(old.trades) != 0 || len(old.rejects) != 4 || !strings.HasPrefix(old.rejects[3].Reason, "unknown pool: "+paddr) {
		t.Fatalf("without a registry: %d trades, %d rejects", len(old.trades), len(old.rejects))
	}

	c, err := chain.New(ch.Config("polygon"), chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	calls := 0
	reg := uniswap.NewRegistry("polygon", func(ctx context.Context, to common.Address, data []byte) ([]byte, error) {
		calls++
		return c.Call(ctx, ethereum.CallMsg{To: &to, Data: data}, nil, nil)
	})
	SetPoolRegistry("polygon", reg)
	defer SetPoolRegistry("polygon", nil)
	if _, err := Open(path + "#chain=base"); err == nil || !strings.Contains(err.Error(), `chain "base" has no RPC endpoint`) {
		t.Fatalf("Open with an unconfigured chain = %v", err)
	}
	r := readAll(t, path+"#chain=polygon")
	if len(r.rejects) != 0 || len(r.trades) != 2 || len(r.events) != 3 { // Mint + 2 swaps
		t.Fatalf("with a registry: %d trades, %d events, %d rejects", len(r.trades), len(r.events), len(r.rejects))
	}
	if calls != 8 { // token0, token1, fee, tickSpacing, 2 × (decimals, symbol): once
		t.Fatalf("%d eth_calls, want 8 (one read per pool and token)", calls)
	}
	again := readAll(t, path) // the only registry: no suffix needed; cached
	if len(again.trades) != 2 || calls != 8 {
		t.Fatalf("second replay: %d trades, %d calls", len(again.trades), calls)
	}
	amounts := func(s uniswaptest.Swapped) (base, quote *big.Int) {
		if pttIs0 {
			return s.Amount0, s.Amount1
		}
		return s.Amount1, s.Amount0
	}
	f := func(i int, side schemas.Side) {
		t.Helper()
		tr := r.trades[i]
		b, q := amounts(sw[i])
		size, _ := new(big.Float).Quo(new(big.Float).SetInt(new(big.Int).Abs(b)), big.NewFloat(1e18)).Float64()
		notional, _ := new(big.Float).Quo(new(big.Float).SetInt(new(big.Int).Abs(q)), big.NewFloat(1e6)).Float64()
		if tr.Symbol != "PTTUSD" || tr.VenueSymbol != "PTT/USDC.e" || tr.Chain != "polygon" || tr.Market != paddr || tr.Side != side ||
			!near(tr.Size, size, 1e-12) || !near(tr.NotionalUsd, notional, 1e-12) || !near(tr.Price, notional/size, 1e-12) || !near(tr.Price, 2, 0.01) {
			t.Fatalf("trade %d = %v; want %s size %v notional %v", i, tr, side, size, notional)
		}
	}
	f(0, schemas.Side_SIDE_SELL)
	f(1, schemas.Side_SIDE_BUY)
	if r.trades[0].Price >= r.trades[1].Price { // a sell pays the fee below, a buy above
		t.Fatalf("sell price %v not below buy price %v", r.trades[0].Price, r.trades[1].Price)
	}
}

// TestUniswapBlockTimeOffsets checks the raw-logs CSV takes block times
// with an offset, as BigQuery and Dune export them, at the instant they
// name.
func TestUniswapBlockTimeOffsets(t *testing.T) {
	row := func(ts string) string {
		return `18937382,` + ts + `,0x0bb5e0dc49ae0b5a1949beabadc64522dd5615415a168650a3b592a84ae5ee05,33,169,"['0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67', '0x0000000000000000000000003fc91a3afd70395cd496c647d5a6cc9d4b2b7fad', '0x0000000000000000000000003fc91a3afd70395cd496c647d5a6cc9d4b2b7fad']",0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffffea5d662000000000000000000000000000000000000000000000000002386f26fc1000000000000000000000000000000000000000051fdf2fd9b2526872a9b723450f2000000000000000000000000000000000000000000000000acd43e0e7cf808c50000000000000000000000000000000000000000000000000000000000030985`
	}
	want := time.Date(2024, 1, 5, 0, 0, 23, 0, time.UTC).UnixNano()
	f := func(ts string, wantNs int64) {
		t.Helper()
		p := newUniswapParser(KnownPools[0].Address, nil)
		if err := p.csvHeader(uniswapCSVColumns); err != nil {
			t.Fatal(err)
		}
		recs := p.parse([]byte(row(ts)), nil)
		var got *schemas.Trade
		for _, r := range recs {
			if r.Trade != nil {
				got = r.Trade
			}
		}
		switch {
		case wantNs == 0 && got != nil:
			t.Fatalf("%q: accepted as %v", ts, got)
		case wantNs == 0:
			if len(recs) != 1 || !strings.HasPrefix(recs[0].Reason, "bad timestamp") {
				t.Fatalf("%q: %+v", ts, recs)
			}
		case got == nil || got.EventTimeNs != wantNs:
			t.Fatalf("%q: trade %v, want time %d", ts, got, wantNs)
		}
	}
	f("2024-01-05 00:00:23", want)
	f("2024-01-05 00:00:23+00:00", want)
	f("2024-01-05T00:00:23Z", want)
	f("2024-01-05 00:00:23 +00:00", want)
	f("2024-01-05 02:00:23+02:00", want)
	f("2024-01-04 19:00:23-05:00", want)
	f("2024-01-05 00:00:23 UTC", 0)
	f("2024-01-05", 0)
}

// TestRegistryFind discovers the Bridged pool from the factory's getPool.
func TestRegistryFind(t *testing.T) {
	b := uniswaptest.DeployBridged(t)
	c, err := chain.New(b.Chain.Config("polygon"), chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reg := uniswap.NewRegistry("polygon", func(ctx context.Context, to common.Address, data []byte) ([]byte, error) {
		return c.Call(ctx, ethereum.CallMsg{To: &to, Data: data}, nil, nil)
	})
	m, err := reg.Find(context.Background(), b.V3.Factory, b.Pool.Token1, b.Pool.Token0, 3000)
	if err != nil {
		t.Fatal(err)
	}
	if m.Address != strings.ToLower(b.Pool.Address.Hex()) || m.Fee != 3000 || m.TickSpacing != 60 || m.Chain != "polygon" {
		t.Fatalf("found %+v", m)
	}
	if _, err := reg.Find(context.Background(), b.V3.Factory, b.Pool.Token0, b.Pool.Token1, 500); !errors.Is(err, uniswap.ErrNoPool) {
		t.Fatalf("fee without a pool: %v", err)
	}
}

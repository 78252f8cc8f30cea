package main

import (
	"context"
	"io"
	"log/slog"
	"math"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/token/assess"
)

// Addresses of the dev chain's suite, as the README tour lists them: the
// seed and the deployment order fix them.
var devAddrs = map[string]string{
	"plain":    "0xd6f869d20b859737EE1Fe58D7afA15F8e4a4a1e1",
	"honeypot": "0x36AC5f9812C8b78D8A6e5746Ae6969dc837F9cAD",
}

// TestDevChain starts the demo chain twice: the suite lands at the same
// addresses, and the token routes' reader answers from it (the plain
// token LOW_RISK, the honeypot HIGH_RISK); the depeg watch's coins read at
// the peg, and the chain's freshness is in the process's registry (the one
// /status shows).
func TestDevChain(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	var first []string
	for run := range 2 {
		reg := sources.NewRegistry(log, nil)
		r, coins, stop, err := startDevChain("127.0.0.1:0", reg, log)
		if err != nil {
			t.Fatal(err)
		}
		if len(coins) != 2 {
			stop()
			t.Fatalf("coins %+v", coins)
		}
		q, err := r.StablecoinQuote(ctx, coins[0])
		if err != nil || q.Symbol != "USDT" || math.Abs(q.DexPrice-1) > 1e-6 || !q.HasOracle {
			stop()
			t.Fatalf("USDT quote %+v, %v", q, err)
		}
		plain, honey := common.HexToAddress(devAddrs["plain"]), common.HexToAddress(devAddrs["honeypot"])
		rep, err := r.Risk(ctx, "base", plain)
		if err != nil {
			stop()
			t.Fatalf("run %d: %v", run, err)
		}
		hp, err := r.Risk(ctx, "base", honey)
		stop()
		if err != nil {
			t.Fatal(err)
		}
		fresh := false
		for _, f := range reg.Snapshot() {
			fresh = fresh || f.Name == "chain:base" && f.State == "ok"
		}
		if !fresh {
			t.Fatalf("run %d: no fresh chain:base in %+v", run, reg.Snapshot())
		}
		if rep.Verdict != assess.LowRisk || hp.Verdict != assess.HighRisk || rep.Symbol != "PLAIN" || hp.Symbol != "HONEY" {
			t.Fatalf("run %d: plain %s %s, honeypot %s %s", run, rep.Symbol, rep.Verdict, hp.Symbol, hp.Verdict)
		}
		got := []string{rep.Token, hp.Token}
		if run == 0 {
			first = got
		} else if got[0] != first[0] || got[1] != first[1] {
			t.Fatalf("addresses moved: %v then %v", first, got)
		}
	}
}

package main

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/ethereum/go-ethereum/common"

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
// token LOW_RISK, the honeypot HIGH_RISK).
func TestDevChain(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	var first []string
	for run := range 2 {
		r, stop, err := startDevChain("127.0.0.1:0", log)
		if err != nil {
			t.Fatal(err)
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

package main

import (
	"flag"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// TestPaymentFlags: the paywall is off without a payTo address, on with
// one, and bad values are refused with the accepted ones.
func TestPaymentFlags(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	f := func(args []string, wantPaywall bool, wantErr string) {
		t.Helper()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		p := addPaymentFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		store, pw, err := p.build(t.Context(), t.TempDir(), log)
		if wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), wantErr) {
				t.Errorf("%v: err %v, want %q", args, err, wantErr)
			}
			return
		}
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		defer store.Close()
		if (pw != nil) != wantPaywall {
			t.Errorf("%v: paywall %v", args, pw)
		}
	}
	f(nil, false, "")
	f([]string{"--pay-to-evm", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"}, true, "")
	f([]string{"--pay-to-evm", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "--pay-to-solana", "CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5"}, true, "")
	f([]string{"--pay-to-evm", "nope"}, false, "not a 0x address")
	f([]string{"--pay-to-evm", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "--settlement", "bank"}, false, "accepted values are facilitator, relayer")
	f([]string{"--pay-to-evm", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "--pay-networks", "eip155:1"}, false, "unknown network")
	f([]string{"--pay-to-evm", "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "--rpc-url", "x"}, false, "eip155:N=URL")
}

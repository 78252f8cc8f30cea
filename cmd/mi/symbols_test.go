package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestSymbolsCommand checks mi symbols: every covered symbol once, stocks
// as bare tickers, aliases and venues listed, names resolved in any case
// and spelling, unknown names refused naming each.
func TestSymbolsCommand(t *testing.T) {
	var out bytes.Buffer
	if err := cmdSymbols([]string{"--json"}, &out); err != nil {
		t.Fatal(err)
	}
	var rows []symbolRow
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	by := map[string]symbolRow{}
	for _, r := range rows {
		if _, dup := by[r.Symbol]; dup {
			t.Fatalf("%s listed twice", r.Symbol)
		}
		by[r.Symbol] = r
	}
	if _, ok := by["TSLAUSD"]; ok || by["TSLA"].Class != "us_equity" || !strings.Contains(strings.Join(by["TSLA"].Venues, ","), "sim") {
		t.Fatalf("TSLA row %+v (and TSLAUSD must not be a row)", by["TSLA"])
	}
	if r := by["RENDERUSD"]; !strings.Contains(strings.Join(r.Aliases, ","), "RNDRUSD") {
		t.Fatalf("RENDERUSD row %+v", r)
	}
	if r := by["BTCUSD"]; !strings.Contains(strings.Join(r.Venues, ","), "coinbase:BTC-USD") {
		t.Fatalf("BTCUSD row %+v", r)
	}

	out.Reset()
	if err := cmdSymbols([]string{"rndrusd", "tslausd", "MATIC", "btc-usdt", "TSLA"}, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var got []string
	for _, l := range lines[1:] {
		got = append(got, strings.Fields(l)[0])
	}
	if strings.Join(got, " ") != "RENDERUSD TSLA POLUSD BTCUSD" {
		t.Fatalf("resolved %v:\n%s", got, out.String())
	}

	err := cmdSymbols([]string{"btc", "nosuchcoin", "XRPETH"}, &out)
	if err == nil || !strings.Contains(err.Error(), `"nosuchcoin"`) || !strings.Contains(err.Error(), `"XRPETH"`) || !strings.Contains(err.Error(), "mi symbols") {
		t.Fatalf("unknown names: %v", err)
	}
	if err := cmdSymbols([]string{"--class", "stocks"}, &out); err == nil || !strings.Contains(err.Error(), "us_equity") {
		t.Fatalf("bad class: %v", err)
	}
}

// TestBackfillSymbols checks mi backfill --symbols takes any spelling of a
// simulated symbol (here the stock's USD pair and a renamed asset's former
// symbol), and that an unknown one is refused with a hint a user can act on
// (the command, not a Go identifier).
func TestBackfillSymbols(t *testing.T) {
	dir := t.TempDir()
	err := cmdBackfill(context.Background(), []string{"--data-dir", dir, "--from", "2026-03-02", "--rate", "0.01", "--symbols", "TSLAUSD,rndrusd"})
	if err != nil {
		t.Fatalf("backfill --symbols TSLAUSD,rndrusd: %v", err)
	}
	var out bytes.Buffer
	if err := runSQL(context.Background(), &out, dir, "256MB", "SELECT DISTINCT symbol FROM trades ORDER BY 1", true); err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(strings.ReplaceAll(out.String(), "\n", " ")); strings.Join(got, " ") != "symbol RENDERUSD TSLA" {
		t.Fatalf("symbols in the day files: %q", out.String())
	}
	err = cmdBackfill(context.Background(), []string{"--data-dir", dir, "--from", "2026-03-02", "--symbols", "TSLAUSD,FOOUSD"})
	if err == nil || !strings.Contains(err.Error(), `"FOOUSD"`) || !strings.Contains(err.Error(), "mi symbols") || strings.Contains(err.Error(), "sim.") {
		t.Fatalf("unknown symbol: %v", err)
	}
}

package replay

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The recorded Trades page (pretty-printed, as nautilus_trader keeps it):
// 1,000 XBTUSDT trades.
func TestKrakenRESTPage(t *testing.T) {
	r := readAll(t, krakenPage1)
	if len(r.trades) != 1000 || len(r.rejects) != 0 || r.name != "replay:http_trades_XBTUSDT_2025-11-10" {
		t.Fatalf("%s: %d trades, %d rejects", r.name, len(r.trades), len(r.rejects))
	}
	if tr := r.trades[0]; tr.Venue != "kraken" || tr.Symbol != "BTCUSD" || tr.Market != "XBTUSDT" || tr.TradeId != "10218208" || tr.EventTimeNs != 1762795433971744500 {
		t.Errorf("first trade %v", tr)
	}
	if buy, sell, unknown := sides(r.trades); buy+sell != 1000 || unknown != 0 || buy == 0 || sell == 0 {
		t.Errorf("sides %d/%d/%d", buy, sell, unknown)
	}
}

// A crawl's file of pages: one compact page a line, or pretty-printed
// pages one after another. A page asked again adds nothing (its 1,000
// trades are duplicates, skipped); an error page is rejected with
// Kraken's error; a truncated page is rejected.
func TestKrakenRESTPages(t *testing.T) {
	pretty, err := os.ReadFile(krakenPage1)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, pretty); err != nil {
		t.Fatal(err)
	}
	errPage := `{"error":["EGeneral:Too many requests"]}`
	dir := t.TempDir()
	f := func(name, body string, wantTrades int, wantReasons ...string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		r := readAll(t, p)
		if len(r.trades) != wantTrades || len(r.rejects) != len(wantReasons) {
			t.Fatalf("%s: %d trades, %d rejects (%v); want %d, %d", name, len(r.trades), len(r.rejects), r.rejects, wantTrades, len(wantReasons))
		}
		for i, w := range wantReasons {
			if !strings.HasPrefix(r.rejects[i].Reason, w) {
				t.Errorf("%s: reject %d %q, want %q", name, i, r.rejects[i].Reason, w)
			}
		}
	}
	c := compact.String()
	f("pages.jsonl", c+"\n"+errPage+"\n"+c+"\n", 1000, "venue error: EGeneral:Too many requests")
	f("pages_pretty.json", string(pretty)+string(pretty), 1000)
	f("pages_pretty_err.json", string(pretty)+"\n"+errPage+"\n", 1000, "venue error: EGeneral")
	f("page_cut.json", string(pretty[:len(pretty)/2]), 0, "malformed json")
	f("pages_bad_line.jsonl", c+"\n"+c[:100]+"\n", 1000, "malformed json")
	f("pages_err_first.jsonl", errPage+"\n"+c+"\n", 1000, "venue error: EGeneral")
}

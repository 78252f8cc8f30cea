package kraken

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// realPage is the recorded Trades page (testdata/README.md).
const realPage = "testdata/http_trades_XBTUSDT_2025-11-10.json"

func readPage(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(realPage)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pageEntries returns the recorded page's trade entries, as recorded.
func pageEntries(t testing.TB) []json.RawMessage {
	t.Helper()
	var p struct {
		Result struct {
			XBTUSDT []json.RawMessage
		}
	}
	if err := json.Unmarshal(readPage(t), &p); err != nil {
		t.Fatal(err)
	}
	return p.Result.XBTUSDT
}

// page builds a page of entries with the cursor last.
func page(entries []json.RawMessage, last string) []byte {
	b, _ := json.Marshal(map[string]any{"error": []string{}, "result": map[string]any{"XBTUSDT": entries, "last": last}})
	return b
}

func split(recs []sources.Record) (trades []*schemas.Trade, gaps []*schemas.Gap, rejects []string) {
	for _, r := range recs {
		switch {
		case r.Trade != nil:
			trades = append(trades, r.Trade)
		case r.Gap != nil:
			gaps = append(gaps, r.Gap)
		default:
			rejects = append(rejects, r.Reason)
		}
	}
	return
}

// The recorded page: 1,000 trades of XBTUSDT, ids 10218208 … 10219207; the
// same page asked again (since unchanged) adds nothing.
func TestRESTPageRecorded(t *testing.T) {
	d := New("test")
	trades, gaps, rejects := split(d.RESTPage(readPage(t), nil))
	if len(trades) != 1000 || len(gaps) != 0 || len(rejects) != 0 {
		t.Fatalf("%d trades, %d gaps, rejects %v", len(trades), len(gaps), rejects)
	}
	px, sz := 105433.6, 0.00027625 // float64 product, as the decoder computes it
	want := &schemas.Trade{Venue: "kraken", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, Market: "XBTUSDT", VenueSymbol: "XBTUSDT",
		Symbol: "BTCUSD", TradeId: "10218208", Side: schemas.Side_SIDE_BUY, Price: px, Size: sz,
		NotionalUsd: px * sz, EventTimeNs: 1762795433971744500, IngestTimeNs: 1762795433971744500, Source: "test"}
	if trades[0].String() != want.String() {
		t.Errorf("first trade\n got %v\nwant %v", trades[0], want)
	}
	lastT := trades[999]
	if lastT.TradeId != "10219207" || lastT.Side != schemas.Side_SIDE_SELL || lastT.Price != 105899.4 || lastT.EventTimeNs != 1762820035982277900 {
		t.Errorf("last trade %v", lastT)
	}
	buys := 0
	for _, tr := range trades {
		if tr.Side == schemas.Side_SIDE_BUY {
			buys++
		}
	}
	if buys == 0 || buys == 1000 {
		t.Errorf("%d buys of 1000", buys)
	}
	trades, gaps, rejects = split(d.RESTPage(readPage(t), nil))
	if len(trades) != 0 || len(gaps) != 0 || len(rejects) != 0 {
		t.Errorf("page again: %d trades, %d gaps, %v", len(trades), len(gaps), rejects)
	}
	if st := d.RESTStats(); st.Pages != 2 || st.Duplicates != 1000 || st.Gaps != 0 {
		t.Errorf("stats %+v", st)
	}
}

// Paging over pages cut from the recorded one: overlapping pages give each
// trade once; a missing stretch of ids is a gap record of BTCUSD.
func TestRESTPaging(t *testing.T) {
	e := pageEntries(t)
	d := New("test")
	var all []*schemas.Trade
	for _, p := range [][]byte{
		page(e[0:400], "1762800000000000000"),
		page(e[350:600], "1762805000000000000"),  // overlaps 50
		page(e[800:1000], "1762820035982277754"), // 200 ids missing
	} {
		trades, gaps, rejects := split(d.RESTPage(p, nil))
		if len(rejects) != 0 {
			t.Fatal(rejects)
		}
		all = append(all, trades...)
		if len(gaps) > 0 {
			g := gaps[0]
			if len(gaps) != 1 || !strings.Contains(g.Reason, "ids 10218808-10219007") || g.FromNs != all[599].EventTimeNs || g.ToNs != trades[0].EventTimeNs {
				t.Errorf("gaps %v", gaps)
			}
		}
	}
	if len(all) != 800 || all[599].TradeId != "10218807" || all[600].TradeId != "10219008" {
		t.Fatalf("%d trades", len(all))
	}
	if st := d.RESTStats(); st.Pages != 3 || st.Duplicates != 50 || st.Gaps != 1 || st.OutOfOrder != 0 {
		t.Errorf("stats %+v", st)
	}
}

// Pages and entries Kraken's documentation describes, and broken ones.
func TestRESTPageKinds(t *testing.T) {
	f := func(p, wantReason string, wantTrades int) {
		t.Helper()
		trades, _, rejects := split(New("test").RESTPage([]byte(p), nil))
		reason := ""
		if len(rejects) > 0 {
			reason = rejects[0]
		}
		if len(trades) != wantTrades || !strings.HasPrefix(reason, wantReason) || (wantReason == "" && reason != "") {
			t.Errorf("%s: %d trades, reason %q; want %d, %q", p, len(trades), reason, wantTrades, wantReason)
		}
	}
	f(`{"error":["EGeneral:Too many requests"]}`, "venue error: EGeneral:Too many requests", 0)
	f(`{"error":["EQuery:Unknown asset pair"],"result":{}}`, "venue error: EQuery:Unknown asset pair", 0)
	f(`{"error":[],"result":{"last":"1"}}`, "malformed page: result names no pair", 0)
	f(`{"error":[],"result":[]}`, "malformed page: result is not an object", 0)
	f(`{"error":[],"result":{"XXBTZUSD":[],"last":"1"}}`, "", 0)
	f(`{"error":[],"result":{"XXBTZUSD":{},"last":"1"}}`, "malformed page: trades are not an array", 0)
	f(`{"error":[],"result":{"XXBTZUSD":[["6650.00000","0.00100000",1535271158.4026,"b","m",""]],"last":"1535290179989384853"}}`, "", 1)
	f(`{"error":[],"result":{"XXBTZUSD":[["6650.00000","0.00100000",1535271158.4026,"x","m",""]],"last":"1"}}`, "bad side", 0)
	f(`{"error":[],"result":{"XXBTZUSD":[["6650.00000","0.001",1535271158.4026,"b"]],"last":"1"}}`, "malformed trade: 4 members", 0)
	f(`{"error":[],"result":{"XXBTZUSD":[["x","0.001",1535271158.4026,"b","m","",1]],"last":"1"}}`, "bad price", 0)
	f(`{"error":[],"result":{"XXBTZUSD":[["1","0.001",-5,"b","m","",1]],"last":"1"}}`, "bad timestamp", 0)
	f(`{"error":[],"result":{"XXBTZUSD":[["1","0.001",1535271158.4026,"b","m","",1.5]],"last":"1"}}`, "bad trade id", 0)
	f(`{"error":[],"result":{"XXBTZUSD":[],"last":"abc"}}`, "malformed page: last is not an integer", 0)
	f(`{"error":[],"result":{"XXBTZEUR":[["1","0.001",1535271158.4026,"b","m","",1]],"last":"1"}}`, "unknown symbol: XBT/EUR", 0)
	f(`{"error":[],"result":{`, "malformed json", 0)
}

func TestLegacyPair(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := LegacyPair(in); got != want {
			t.Errorf("LegacyPair(%q) = %q, want %q", in, got, want)
		}
	}
	f("XXBTZUSD", "XBT/USD")
	f("XETHZUSD", "ETH/USD")
	f("XBTUSDT", "XBTUSDT")
	f("SOLUSD", "SOLUSD")
	f("XXBTZ", "XXBTZ")
}

package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// parseOne runs a parser over lines and returns its records.
func parseOne(p parser, lines ...string) []sources.Record {
	var out []sources.Record
	for _, l := range lines {
		out = p.parse([]byte(l), out)
	}
	return out
}

func TestGenericNDJSON(t *testing.T) {
	f := func(line, want string) {
		t.Helper()
		p := newGenericJSONParser()
		p.SetSource("replay:x")
		recs := parseOne(p, line)
		if len(recs) != 1 {
			t.Fatalf("%s: %d records", line, len(recs))
		}
		got := ""
		if tr := recs[0].Trade; tr != nil {
			got = strings.Join([]string{tr.Venue, schemas.VenueKindName(tr.VenueKind), tr.Chain, tr.Market, tr.Symbol, tr.VenueSymbol,
				itoa(tr.EventTimeNs), ftoa(tr.Price), ftoa(tr.Size), ftoa(tr.NotionalUsd), schemas.SideName(tr.Side), tr.TradeId, itoa(int64(tr.LogIndex)), tr.Wallet}, "|")
			if tr.Source != "replay:x" || tr.IngestTimeNs != tr.EventTimeNs {
				t.Fatalf("source %q ingest %d", tr.Source, tr.IngestTimeNs)
			}
		} else {
			got = "reject: " + recs[0].Reason
			if string(recs[0].Raw) != line {
				t.Fatalf("raw %q, want the line", recs[0].Raw)
			}
		}
		if got != want {
			t.Fatalf("%s:\n got %s\nwant %s", line, got, want)
		}
	}
	f(`{"time":"2024-08-08T23:54:15.5Z","venue":"binance","symbol":"BTCUSDT","price":"61837.63","size":"0.02","side":"BUY","trade_id":"1"}`,
		"binance|cex||BTCUSDT|BTCUSD|BTCUSDT|1723161255500000000|61837.63|0.02|1236.7526|BUY|1|0|")
	f(`{"time":1723161255500000000,"venue":"kraken","symbol":"XBT/USD","price":61837.63,"size":0.02,"side":"sell","trade_id":7}`,
		"kraken|cex||XBT/USD|BTCUSD|XBT/USD|1723161255500000000|61837.63|0.02|1236.7526|SELL|7|0|")
	f(`{"time":"1723161255500000000","venue":"x","symbol":"ETHUSD","price":"2000","size":"1","side":"Unknown","trade_id":"t"}`,
		"x|cex||ETHUSD|ETHUSD|ETHUSD|1723161255500000000|2000|1|2000|UNKNOWN|t|0|")
	f(`{"time":"2024-01-05T00:00:23+00:00","venue":"uniswap_v3","venue_kind":"onchain_dex","chain":"ethereum","market":"0x88e6","symbol":"ETHUSD","price":"2268.611","size":"0.01","notional_usd":"22.68611","side":"sell","trade_id":"0xabc","log_index":169,"wallet":"0xw"}`,
		"uniswap_v3|onchain_dex|ethereum|0x88e6|ETHUSD|ETHUSD|1704412823000000000|2268.611|0.01|22.68611|SELL|0xabc|169|0xw")
	f(`{"time":"2024-01-05T00:00:23Z","venue":"v","venue_kind":"SOLANA_DEX","symbol":"SOL-USDC","price":"1","size":"1","side":"buy","trade_id":"s","extra":[1,{"a":null}]}`,
		"v|solana_dex||SOL-USDC|SOLUSD|SOL-USDC|1704412823000000000|1|1|1|BUY|s|0|")
	// Malformed input: every case is a record with a reason.
	const ok = `"venue":"v","symbol":"BTCUSD","price":"1","size":"1","side":"buy","trade_id":"1"`
	f(`{"time":"2024-01-05T00:00:23Z",`+ok, "reject: malformed json")
	f(`{"time":"2024-01-05T00:00:23Z",`+ok+`} trailing`, "reject: malformed json")
	f(`not json`, "reject: malformed json")
	f(`[1,2]`, "reject: malformed json")
	f(`{"time":"2024-01-05 00:00:23",`+ok+`}`, "reject: bad timestamp: time is not RFC 3339")
	f(`{"time":"yesterday",`+ok+`}`, "reject: bad timestamp: time is not RFC 3339")
	f(`{"time":1.5e18,`+ok+`}`, "reject: bad timestamp: time is not an integer of Unix ns")
	f(`{"time":true,`+ok+`}`, "reject: wrong type: time is not a number")
	f(`{`+ok+`}`, "reject: bad timestamp: time is missing")
	f(`{"time":1000,`+ok+`}`, "reject: invalid trade: absurd timestamp 1000")
	f(`{"time":"2024-01-05T00:00:23Z","venue":"v","symbol":"BTCUSD","price":"NaN","size":"1","side":"buy","trade_id":"1"}`, "reject: bad price: not a decimal")
	f(`{"time":"2024-01-05T00:00:23Z","venue":"v","symbol":"BTCUSD","price":"abc","size":"1","side":"buy","trade_id":"1"}`, "reject: bad price: not a decimal")
	f(`{"time":"2024-01-05T00:00:23Z","venue":"v","symbol":"BTCUSD","price":"1e999","size":"1","side":"buy","trade_id":"1"}`, "reject: bad price: not a decimal")
	f(`{"time":"2024-01-05T00:00:23Z","venue":"v","symbol":"BTCUSD","price":"-1","size":"1","side":"buy","trade_id":"1"}`, "reject: invalid trade: bad price -1")
	f(`{"time":"2024-01-05T00:00:23Z","venue":"v","symbol":"BTCUSD","price":[1],"size":"1","side":"buy","trade_id":"1"}`, "reject: wrong type: price is not a number")
	f(`{"time":"2024-01-05T00:00:23Z","venue":"v","symbol":"BTCUSD","price":"1","size":"0","side":"buy","trade_id":"1"}`, "reject: invalid trade: bad size 0")
	f(`{"time":"2024-01-05T00:00:23Z","venue":"v","symbol":"BTCUSD","price":"1","size":"1","side":"long","trade_id":"1"}`, `reject: bad side: "long" (want buy, sell or unknown)`)
	f(`{"time":"2024-01-05T00:00:23Z","venue":"v","symbol":"BTCUSD","price":"1","size":"1","side":"buy"}`, "reject: bad trade id: missing")
	f(`{"time":"2024-01-05T00:00:23Z","symbol":"BTCUSD","price":"1","size":"1","side":"buy","trade_id":"1"}`, "reject: missing venue")
	f(`{"time":"2024-01-05T00:00:23Z","venue":"v","symbol":"XRPETH","price":"1","size":"1","side":"buy","trade_id":"1"}`, "reject: unknown symbol: XRPETH")
	f(`{"time":"2024-01-05T00:00:23Z","venue":"v","symbol":5,"price":"1","size":"1","side":"buy","trade_id":"1"}`, "reject: wrong type: symbol is not a string")
	f(`{"time":"2024-01-05T00:00:23Z",`+ok+`,"venue_kind":"dex"}`, `reject: bad venue kind: "dex"`)
	f(`{"time":"2024-01-05T00:00:23Z",`+ok+`,"notional_usd":"x"}`, "reject: bad notional: notional_usd is not a decimal")
	f(`{"time":"2024-01-05T00:00:23Z",`+ok+`,"log_index":-1}`, "reject: bad log index: not a 32-bit unsigned integer")
	f(`{"time":"2024-01-05T00:00:23Z",`+ok+`,"log_index":4294967296}`, "reject: bad log index: not a 32-bit unsigned integer")
}

func TestGenericCSV(t *testing.T) {
	f := func(header, line, want string) {
		t.Helper()
		p, err := newGenericCSVParser(splitCSV(header, nil))
		if err != nil {
			if want != "header: "+err.Error() {
				t.Fatalf("header %q: %v", header, err)
			}
			return
		}
		p.SetSource("replay:x")
		recs := parseOne(p, line)
		got := ""
		switch {
		case len(recs) == 0:
			got = "skipped"
		case recs[0].Trade != nil:
			tr := recs[0].Trade
			got = strings.Join([]string{tr.Venue, tr.Symbol, itoa(tr.EventTimeNs), ftoa(tr.Price), ftoa(tr.Size), ftoa(tr.NotionalUsd), schemas.SideName(tr.Side), tr.TradeId, tr.Market, tr.Wallet}, "|")
		default:
			got = "reject: " + recs[0].Reason
		}
		if got != want {
			t.Fatalf("%s / %s:\n got %s\nwant %s", header, line, got, want)
		}
	}
	const h = "time,venue,symbol,price,size,side,trade_id"
	f(h, "2024-08-08T23:54:15.5Z,binance,BTCUSDT,61837.63,0.02,buy,1", "binance|BTCUSD|1723161255500000000|61837.63|0.02|1236.7526|BUY|1|BTCUSDT|")
	f(h, "1723161255500000000,coinbase,BTC-USD,10,2,SELL,x", "coinbase|BTCUSD|1723161255500000000|10|2|20|SELL|x|BTC-USD|")
	f("trade_id,side,size,price,symbol,venue,time,wallet,market,notional_usd", `"a,b",unknown,2,10,ETHUSD,v,2024-01-05T00:00:00Z,0xw,pool,19.5`,
		"v|ETHUSD|1704412800000000000|10|2|19.5|UNKNOWN|a,b|pool|0xw")
	f(h, h, "skipped")
	f(h, "2024-08-08T23:54:15Z,binance,BTCUSDT,61837.63,0.02,buy", "reject: malformed csv: 6 fields, want 7")
	f(h, "2024-08-08T23:54:15Z,binance,BTCUSDT,61837.63,0.02,buy,1,extra", "reject: malformed csv: 8 fields, want 7")
	f(h, "2024-08-08T23:54:15Z,binance,BTCUSDT,NaN,0.02,buy,1", "reject: bad price: not a decimal")
	f(h, "2024-08-08T23:54:15Z,binance,BTCUSDT,1,0x10,buy,1", "reject: bad size: not a decimal")
	f(h, "2024-08-08T23:54:15Z,binance,BTCUSDT,1,Inf,buy,1", "reject: bad size: not a decimal")
	f(h, "2024-08-08,binance,BTCUSDT,1,1,buy,1", "reject: bad timestamp: time is not RFC 3339")
	f(h, "12x,binance,BTCUSDT,1,1,buy,1", "reject: bad timestamp: time is not RFC 3339")
	f(h, "99999999999999999999,binance,BTCUSDT,1,1,buy,1", "reject: bad timestamp: time is not an integer of Unix ns")
	f(h, "2024-08-08T23:54:15Z,binance,ADABTC,1,1,buy,1", "reject: unknown symbol: ADABTC")
	f(h, "2024-08-08T23:54:15Z,binance,BTCUSDT,1,1,b,1", `reject: bad side: "b" (want buy, sell or unknown)`)
	f(h, `2024-08-08T23:54:15Z,binance,"BTCUSDT,1,1,buy,1`, "reject: malformed csv: 3 fields, want 7")
	f("time,venue,symbol,price,size,side", "", `header: bad header: missing column "trade_id"`)
	f(h+",price", "", `header: bad header: duplicate column "price"`)
}

func TestGenericFiles(t *testing.T) {
	dir := t.TempDir()
	f := func(name, body string, trades, rejects int) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		r := readAll(t, p)
		if len(r.trades) != trades || len(r.rejects) != rejects {
			t.Fatalf("%s: %d trades, %d rejects; want %d, %d", name, len(r.trades), len(r.rejects), trades, rejects)
		}
		if r.name != "replay:"+strings.Split(name, ".")[0] {
			t.Fatalf("name %q", r.name)
		}
	}
	f("a.csv", "time,venue,symbol,price,size,side,trade_id\r\n2024-08-08T23:54:15Z,binance,BTCUSDT,1,1,buy,1\r\n\r\n2024-08-08T23:54:15Z,binance,BTCUSDT,1,1,buy\n", 1, 1)
	f("b.ndjson", `{"time":"2024-08-08T23:54:15Z","venue":"v","symbol":"BTCUSD","price":"1","size":"1","side":"buy","trade_id":"1"}`+"\n{\"time\":\n", 1, 1)
	f("c.jsonl", "", 0, 0)
	if _, err := Open(filepath.Join(dir, "a.csv")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "bad.csv")
	os.WriteFile(p, []byte("time,venue,symbol,price,size,side,trade_id,side\n"), 0o644)
	if _, err := Open(p); err == nil || !strings.Contains(err.Error(), "duplicate column") {
		t.Fatalf("Open(bad header) = %v", err)
	}
	// A line longer than the limit is rejected, and the next line still read.
	long := strings.Repeat("x", maxLine+10)
	p = filepath.Join(dir, "long.csv")
	os.WriteFile(p, []byte("time,venue,symbol,price,size,side,trade_id\n"+long+"\n2024-08-08T23:54:15Z,binance,BTCUSDT,1,1,buy,1\n"), 0o644)
	r := readAll(t, p)
	if len(r.trades) != 1 || len(r.rejects) != 1 || !strings.HasPrefix(r.rejects[0].Reason, "line too long") || len(r.rejects[0].Raw) > 4096 {
		t.Fatalf("long line: %d trades, %d rejects", len(r.trades), len(r.rejects))
	}
}

func itoa(n int64) string { return strconvItoa(n) }

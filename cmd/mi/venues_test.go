package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// mi backfill takes the new venue formats as replay: sources, named like
// every other capture (the format is told from the file): cryptofeed's OKX
// recording (format 1, its HTTP file beside it giving the swap's contract
// value), the same recording in format 2, and a Kraken REST Trades page.
func TestBackfillOKXAndKrakenREST(t *testing.T) {
	okx1, _ := filepath.Abs("../../pipeline/sources/venue/okx/testdata/OKX.ws.1.0")
	okx2, _ := filepath.Abs("../../pipeline/sources/venue/okx/testdata/cryptofeed_OKX_format2.DERIVED.jsonl.gz")
	kraken, _ := filepath.Abs("../../pipeline/sources/venue/kraken/testdata/http_trades_XBTUSDT_2025-11-10.json")
	f := func(src, from, to, want string) {
		t.Helper()
		dir := t.TempDir()
		if err := cmdBackfill(context.Background(), []string{"--data-dir", dir, "--from", from, "--to", to, "--source", src}); err != nil {
			t.Fatalf("backfill %s: %v", src, err)
		}
		var out bytes.Buffer
		if err := runSQL(context.Background(), &out, dir, "256MB",
			"SELECT venue, symbol, count(*) AS n, round(sum(notional_usd), 2) AS usd FROM trades GROUP BY ALL ORDER BY venue, symbol", true); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(strings.Fields(out.String()), " "); got != want {
			t.Errorf("%s: trades\n%s\nwant %s", src, got, want)
		}
	}
	// Sums checked against the files with Python (px·sz of the 69 BTC-USDT
	// trades; price·volume of the 1,000 Kraken trades).
	const okxWant = "venue,symbol,n,usd okx,BTCUSD,69,105393.14 okx_swap,UNIUSD,1,1000"
	f("replay:"+okx1, "2022-05-13", "2022-05-13", okxWant)
	f("replay:"+okx2, "2022-05-13", "2022-05-13", okxWant)
	f("replay:"+kraken, "2025-11-10", "2025-11-11", "venue,symbol,n,usd kraken,BTCUSD,1000,9.86968777e+06")
}

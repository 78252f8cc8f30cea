package replay

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/schemas"
)

// The real OKX captures (pipeline/sources/venue/okx/testdata/README.md).
const (
	okxFormat1  = "../venue/okx/testdata/OKX.ws.1.0"
	okxHTTP     = "../venue/okx/testdata/OKX.0"
	okxFormat2  = "../venue/okx/testdata/cryptofeed_OKX_format2.DERIVED.jsonl.gz"
	krakenPage1 = "../venue/kraken/testdata/http_trades_XBTUSDT_2025-11-10.json"
)

// tradeLine renders every field of a trade but the source name.
func tradeLine(t *schemas.Trade) string {
	c := proto.Clone(t).(*schemas.Trade)
	c.Source = ""
	return c.String()
}

func okxCounts(t *testing.T, r result) (spot, swap int, reasons map[string]int) {
	t.Helper()
	reasons = map[string]int{}
	for _, tr := range r.trades {
		switch tr.Venue {
		case "okx":
			spot++
		case "okx_swap":
			swap++
		default:
			t.Fatalf("venue %q", tr.Venue)
		}
	}
	for _, rj := range r.rejects {
		reasons[strings.SplitN(rj.Reason, ":", 2)[0]]++
	}
	return
}

// cryptofeed's format-1 recording with its HTTP file beside it, and the
// same recording in format 2: the same 70 trades (69 BTC-USDT spot, one
// UNI-USD-SWAP with its size from the recorded contract value), the same
// receive times, four dated-future trades rejected.
func TestOKXCryptofeed(t *testing.T) {
	r1 := readAll(t, okxFormat1)
	spot, swap, reasons := okxCounts(t, r1)
	if spot != 69 || swap != 1 || reasons["unknown symbol"] != 4 || len(r1.rejects) != 4 {
		t.Fatalf("format 1: %d spot, %d swap, rejects %v", spot, swap, reasons)
	}
	if r1.name != "replay:OKX.ws.1.0" {
		t.Errorf("name %q", r1.name)
	}
	var first, uni *schemas.Trade
	for _, tr := range r1.trades {
		if first == nil && tr.Venue == "okx" {
			first = tr
		}
		if tr.Venue == "okx_swap" {
			uni = tr
		}
	}
	// 1652459225.5072603: {"arg":{"channel":"trades","instId":"BTC-USDT"},"data":[{"instId":"BTC-USDT","tradeId":"338476307","px":"30236","sz":"0.0002","side":"buy","ts":"1652459224818"}]}
	if first.TradeId != "338476307" || first.Symbol != "BTCUSD" || first.Side != schemas.Side_SIDE_BUY || first.Price != 30236 ||
		first.Size != 0.0002 || first.EventTimeNs != 1652459224818e6 || first.IngestTimeNs != 1652459225507260300 {
		t.Errorf("first spot trade %v", first)
	}
	// {"instId":"UNI-USD-SWAP","tradeId":"12883020","px":"5.123","sz":"100","side":"sell",...}, ctVal 10 USD.
	if uni.Symbol != "UNIUSD" || uni.Side != schemas.Side_SIDE_SELL || uni.NotionalUsd != 1000 || !near(uni.Size, 1000/5.123, 1e-15) {
		t.Errorf("swap trade %v", uni)
	}

	r2 := readAll(t, okxFormat2)
	if len(r2.trades) != len(r1.trades) || len(r2.rejects) != len(r1.rejects) {
		t.Fatalf("format 2: %d trades %d rejects, format 1: %d, %d", len(r2.trades), len(r2.rejects), len(r1.trades), len(r1.rejects))
	}
	for i := range r1.trades {
		if a, b := tradeLine(r1.trades[i]), tradeLine(r2.trades[i]); a != b {
			t.Fatalf("trade %d:\nformat 1 %s\nformat 2 %s", i, a, b)
		}
	}
}

// Without its HTTP file the swap trade cannot be sized and is rejected;
// #instruments= names the file.
func TestOKXInstrumentsSuffix(t *testing.T) {
	dir := t.TempDir()
	alone := filepath.Join(dir, "OKX.ws.1.0")
	b, err := os.ReadFile(okxFormat1)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := readAll(t, alone)
	spot, swap, reasons := okxCounts(t, r)
	if spot != 69 || swap != 0 || reasons["unknown contract value"] != 1 {
		t.Fatalf("alone: %d spot, %d swap, rejects %v", spot, swap, reasons)
	}
	abs, _ := filepath.Abs(okxHTTP)
	r = readAll(t, alone+"#instruments="+abs)
	if _, swap, _ := okxCounts(t, r); swap != 1 {
		t.Fatalf("with #instruments: %d swap trades", swap)
	}
	if _, err := Open(alone + "#instruments=" + filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing instruments file was accepted")
	}
	if _, err := Open(krakenPage1 + "#instruments=" + abs); err == nil || !strings.Contains(err.Error(), "OKX captures only") {
		t.Errorf("#instruments on a Kraken file: %v", err)
	}
}

// The capture's messages framed as `<local_ns> <json>` lines and as bare
// lines give the same trades; bare lines have no receive time.
func TestOKXRawLines(t *testing.T) {
	f, err := os.Open(okxFormat1)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recv := regexp.MustCompile(`^([0-9]+)\.([0-9]+): (.*)$`)
	var raw, bare bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := recv.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		frac := (m[2] + "000000000")[:9]
		raw.WriteString(m[1] + frac + " " + m[3] + "\n")
		bare.WriteString(m[3] + "\n")
	}
	dir := t.TempDir()
	abs, _ := filepath.Abs(okxHTTP)
	for _, c := range []struct {
		name   string
		body   []byte
		ingest bool
	}{{"okx_raw.txt", raw.Bytes(), true}, {"okx_bare.jsonl", bare.Bytes(), false}} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.body, 0o644); err != nil {
			t.Fatal(err)
		}
		r := readAll(t, p+"#instruments="+abs)
		spot, swap, reasons := okxCounts(t, r)
		if spot != 69 || swap != 1 || reasons["unknown symbol"] != 4 {
			t.Fatalf("%s: %d spot, %d swap, %v", c.name, spot, swap, reasons)
		}
		first := r.trades[1] // the swap trade comes first
		if first.TradeId != "338476307" || c.ingest && first.IngestTimeNs != 1652459225507260300 || !c.ingest && first.IngestTimeNs != first.EventTimeNs {
			t.Errorf("%s: ingest %d, event %d", c.name, first.IngestTimeNs, first.EventTimeNs)
		}
	}
}

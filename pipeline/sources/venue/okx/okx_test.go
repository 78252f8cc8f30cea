package okx

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/venue/venuetest"
	"github.com/marketintel/mi/schemas"
)

// captureMessages returns the received messages of the cryptofeed format-1
// recording testdata/OKX.ws.1.0 (lines `<ts>: <json>`), without their
// receive times; connect and send lines are left out.
func captureMessages(t testing.TB) [][]byte {
	t.Helper()
	b, err := os.ReadFile("testdata/OKX.ws.1.0")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.HasPrefix(line, []byte("wss://")) {
			continue
		}
		_, msg, ok := bytes.Cut(line, []byte(": "))
		if !ok {
			t.Fatalf("line without `<ts>: `: %.80s", line)
		}
		out = append(out, append([]byte(nil), msg...))
	}
	return out
}

// instrumentsAnswer returns the body of the recorded SWAP instruments
// answer (testdata/OKX.0: `<url> -> <ts>: <body>`).
func instrumentsAnswer(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/OKX.0")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := bytes.Cut(bytes.TrimSpace(b), []byte(": "))
	if !ok {
		t.Fatal("OKX.0 is not `<url> -> <ts>: <body>`")
	}
	return body
}

func decodeAll(d *Decoder, msgs [][]byte) []sources.Record {
	var out []sources.Record
	for _, m := range msgs {
		out = d.Message(m, 1, out)
	}
	return out
}

// The recorded SWAP instruments answer: the contract values of the
// capture's swaps as OKX listed them on 2022-05-13.
func TestParseInstrumentsRecorded(t *testing.T) {
	cs, err := ParseInstruments(instrumentsAnswer(t))
	if err != nil {
		t.Fatal(err)
	}
	f := func(id string, want Contract) {
		t.Helper()
		if got, ok := cs[id]; !ok || got != want {
			t.Errorf("%s: got %+v (found %v), want %+v", id, got, ok, want)
		}
	}
	f("UNI-USD-SWAP", Contract{Value: 10, Inverse: true})
	f("BTC-USD-SWAP", Contract{Value: 100, Inverse: true})
	f("BTC-USDT-SWAP", Contract{Value: 0.01})
	f("ETH-USDT-SWAP", Contract{Value: 0.1})
	if len(cs) < 150 {
		t.Errorf("%d contracts, want the ~200 swaps OKX listed", len(cs))
	}
	if _, err := ParseInstruments([]byte(`{"code":"51001","msg":"Instrument ID does not exist","data":[]}`)); err == nil || !strings.Contains(err.Error(), "51001") {
		t.Errorf("error answer: %v", err)
	}
	if _, err := ParseInstruments([]byte(`{"code":"0","data":`)); err == nil {
		t.Error("truncated answer accepted")
	}
}

// The real capture: 69 BTC-USDT spot trades, one UNI-USD-SWAP trade
// (rejected until the instruments answer gives its contract value) and
// four trades of a dated future (not a symbol).
func TestCaptureTrades(t *testing.T) {
	msgs := captureMessages(t)
	count := func(recs []sources.Record) (spot, swap int, reasons map[string]int) {
		reasons = map[string]int{}
		for _, r := range recs {
			switch {
			case r.Trade == nil:
				reasons[strings.SplitN(r.Reason, ":", 2)[0]]++
			case r.Trade.Venue == Spot:
				spot++
			case r.Trade.Venue == Swap:
				swap++
			}
		}
		return
	}
	d := New("test")
	recs := decodeAll(d, msgs)
	spot, swap, reasons := count(recs)
	if spot != 69 || swap != 0 || reasons["unknown contract value"] != 1 || reasons["unknown symbol"] != 4 || len(reasons) != 2 {
		t.Fatalf("without instruments: spot %d swap %d rejects %v; want 69, 0, 1 unknown contract value, 4 unknown symbol", spot, swap, reasons)
	}
	if got := d.Skipped(); got != uint64(len(msgs)-74) {
		t.Errorf("skipped %d messages, want %d (all but the 74 trades messages)", got, len(msgs)-74)
	}
	var first *schemas.Trade
	for _, r := range recs {
		if r.Trade != nil {
			first = r.Trade
			break
		}
	}
	want := &schemas.Trade{Venue: "okx", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, Market: "BTC-USDT", VenueSymbol: "BTC-USDT",
		Symbol: "BTCUSD", TradeId: "338476307", Side: schemas.Side_SIDE_BUY, Price: 30236, Size: 0.0002, NotionalUsd: 30236 * 0.0002,
		EventTimeNs: 1652459224818e6, IngestTimeNs: 1, Source: "test"}
	if first == nil || first.String() != want.String() {
		t.Fatalf("first trade\n got %v\nwant %v", first, want)
	}

	d = New("test")
	if n, err := d.Instruments(instrumentsAnswer(t)); err != nil || n < 150 {
		t.Fatalf("instruments: %d, %v", n, err)
	}
	recs = decodeAll(d, msgs)
	spot, swap, reasons = count(recs)
	if spot != 69 || swap != 1 || reasons["unknown symbol"] != 4 || len(reasons) != 1 {
		t.Fatalf("with instruments: spot %d swap %d rejects %v", spot, swap, reasons)
	}
	for _, r := range recs {
		if tr := r.Trade; tr != nil && tr.Venue == Swap {
			// {"instId":"UNI-USD-SWAP","tradeId":"12883020","px":"5.123","sz":"100","side":"sell","ts":"1652459215150"}:
			// 100 contracts of 10 USD.
			if tr.Symbol != "UNIUSD" || tr.TradeId != "12883020" || tr.Side != schemas.Side_SIDE_SELL || tr.NotionalUsd != 1000 ||
				math.Abs(tr.Size-1000/5.123) > 1e-12 || tr.EventTimeNs != 1652459215150e6 {
				t.Errorf("swap trade %v", tr)
			}
		}
	}
}

// Messages of the live protocol around the trades, one reason each.
func TestMessageKinds(t *testing.T) {
	d := New("test")
	d.SetContract("BTC-USDT-SWAP", Contract{Value: 0.01})
	f := func(msg, wantReason string, wantTrades int, wantSkip bool) {
		t.Helper()
		before := d.Skipped()
		recs := d.Message([]byte(msg), 5, nil)
		trades, reason := 0, ""
		for _, r := range recs {
			if r.Trade != nil {
				trades++
			} else if reason == "" {
				reason = r.Reason
			}
		}
		if trades != wantTrades || !strings.HasPrefix(reason, wantReason) || (wantReason == "" && reason != "") {
			t.Errorf("%s: %d trades, reason %q; want %d, %q", msg, trades, reason, wantTrades, wantReason)
		}
		if skipped := d.Skipped() > before; skipped != wantSkip {
			t.Errorf("%s: skipped %v, want %v", msg, skipped, wantSkip)
		}
	}
	f("pong", "", 0, true)
	f(`{"event":"subscribe","arg":{"channel":"trades","instId":"BTC-USDT"},"connId":"a4d3ae55"}`, "", 0, true)
	f(`{"event":"error","code":"60012","msg":"Invalid request: {\"op\": \"subscribe\"}","connId":"a4d3ae55"}`, "venue error: 60012: Invalid request", 0, false)
	f(`{"event":"notice","code":"64008","msg":"The connection will soon be closed for a service upgrade."}`, "", 0, true)
	f(`{"arg":{"channel":"books","instId":"BTC-USDT"},"action":"update","data":[]}`, "", 0, true)
	f(`{"arg":{"channel":"trades","instId":"BTC-USDT-SWAP"},"data":[{"instId":"BTC-USDT-SWAP","tradeId":"1","px":"30000","sz":"3","side":"buy","ts":"1652459224818","count":"2"}]}`, "", 1, false)
	f(`{"arg":{"channel":"trades","instId":"BTC-USDT"},"data":[{"tradeId":"2","px":"30000","sz":"0.1","side":"sell","ts":"1652459224818"}]}`, "", 1, false)
	f(`{"arg":{"channel":"trades","instId":"BTC-USDT"},"data":[]}`, "", 0, true)
	f(`{"arg":{"channel":"trades","instId":"BTC-USDT"},"data":{}}`, "malformed trades message", 0, false)
	f(`{"arg":{"channel":"trades","instId":"ETH-USDT-SWAP"},"data":[{"instId":"ETH-USDT-SWAP","tradeId":"3","px":"2000","sz":"1","side":"buy","ts":"1652459224818"}]}`, "unknown contract value: ETH-USDT-SWAP", 0, false)
	f(`{"arg":{"channel":"trades","instId":"BTC-USDT"},"data":[{"instId":"BTC-USDT","tradeId":"4","px":"NaN","sz":"1","side":"buy","ts":"1652459224818"}]}`, "bad price", 0, false)
	f(`{"arg":{"channel":"trades","instId":"BTC-USDT"},"data":[{"instId":"BTC-USDT","tradeId":"4","px":"1","sz":"1","side":"up","ts":"1652459224818"}]}`, "bad side", 0, false)
	f(`{"arg":{"channel":"trades","instId":"BTC-USDT"},"data":[{"instId":"BTC-USDT","px":"1","sz":"1","side":"buy","ts":"1652459224818"}]}`, "bad trade id", 0, false)
	f(`{"arg":{"channel":"trades","instId":"BTC-USDT"},"data":[{"instId":"BTC-USDT","tradeId":"5","px":"1","sz":"1","side":"buy","ts":"x"}]}`, "bad timestamp", 0, false)
	f(`{"arg":{"channel":"trades","instId":"BTC-EUR"},"data":[{"instId":"BTC-EUR","tradeId":"5","px":"1","sz":"1","side":"buy","ts":"1652459224818"}]}`, "unknown symbol: BTC-EUR", 0, false)
	f(`{"id":"1","op":"order"}`, "unknown message type", 0, false)
	f(`{"arg":`, "malformed json", 0, false)
	f(`ping`, "malformed json", 0, false)
}

// The linear swap: 3 contracts of 0.01 BTC are 0.03 BTC. No real capture
// of a linear-swap trade was found: the message is OKX's documentation
// example (its tradeId, px, ts) on BTC-USDT-SWAP with sz 3; the contract
// value is the recorded answer's (ctVal 0.01, ctValCcy BTC).
func TestLinearSwapSize(t *testing.T) {
	d := New("test")
	if _, err := d.Instruments(instrumentsAnswer(t)); err != nil {
		t.Fatal(err)
	}
	recs := d.Message([]byte(`{"arg":{"channel":"trades","instId":"BTC-USDT-SWAP"},"data":[{"instId":"BTC-USDT-SWAP","tradeId":"130639474","px":"42219.9","sz":"3","side":"buy","ts":"1630048897897"}]}`), 1, nil)
	if len(recs) != 1 || recs[0].Trade == nil {
		t.Fatalf("%+v", recs)
	}
	tr := recs[0].Trade
	if tr.Venue != Swap || tr.Symbol != "BTCUSD" || tr.Size != 3*0.01 || tr.NotionalUsd != 42219.9*(3*0.01) {
		t.Errorf("%v", tr)
	}
}

// The fast path gives what the general path gives on every message of the
// capture, live and recorded, and takes every trade.
func TestFastPathMatchesGeneral(t *testing.T) {
	msgs := captureMessages(t)
	body := instrumentsAnswer(t)
	for _, recorded := range []bool{false, true} {
		fast, general := New("x"), New("x")
		general.SetFastPath(false)
		for _, d := range []*Decoder{fast, general} {
			if _, err := d.Instruments(body); err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range msgs {
			var a, b []sources.Record
			if recorded {
				a, b = fast.Recorded(m, m, 7, nil), general.Recorded(m, m, 7, nil)
			} else {
				a, b = fast.Message(m, 7, nil), general.Message(m, 7, nil)
			}
			if d := venuetest.DiffRecords(a, b); d != "" {
				t.Fatalf("recorded %v: %s on %.200s", recorded, d, m)
			}
		}
		if fast.Skipped() != general.Skipped() || fast.FastTrades != 70 || general.FastTrades != 0 {
			t.Errorf("recorded %v: skipped %d/%d, fast trades %d/%d", recorded, fast.Skipped(), general.Skipped(), fast.FastTrades, general.FastTrades)
		}
	}
}

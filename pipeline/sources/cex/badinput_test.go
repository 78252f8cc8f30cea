package cex

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/schemas"
)

// Bad input on a live connection becomes rejected records with a reason;
// the connection stays up (one dial) and the trades after it still arrive.
func TestBadInputKeepsConnection(t *testing.T) {
	big := []byte(`{"channel":"trades","data":"` + strings.Repeat("x", 9000) + `"}`)
	common := [][]byte{
		[]byte(`{"not closed`),        // partial JSON
		[]byte(`not json at all`),     // malformed
		[]byte(`[1,2,3]`),             // not an object
		big,                           // oversized (limit 4096 below)
		[]byte("BINARY:\x00\x01\x02"), // binary frame
	}
	cases := []struct {
		protocol, venue string
		markets         []string
		trade           []byte // a valid trade message
		venueErr        []byte
		unknown         []byte
		badTrade        []byte
	}{
		{"binance", "", []string{"BTCUSDT"},
			[]byte(`{"stream":"btcusdt@trade","data":{"e":"trade","E":1723161254000,"s":"BTCUSDT","t":3712345,"p":"61000.10","q":"0.01","T":1723161254000,"m":true,"M":true}}`),
			[]byte(`{"error":{"code":2,"msg":"Invalid request: unknown variant"},"id":1}`),
			[]byte(`{"stream":"btcusdt@weird","data":{"e":"weirdEvent","E":1}}`),
			[]byte(`{"stream":"btcusdt@trade","data":{"e":"trade","E":1,"s":"BTCUSDT","t":3712346,"p":"abc","q":"0.01","T":1723161254000,"m":true}}`)},
		{"coinbase", "", []string{"BTC-USD"},
			[]byte(`{"channel":"market_trades","timestamp":"2026-08-09T21:06:12Z","sequence_num":5,"events":[{"type":"update","trades":[{"product_id":"BTC-USD","trade_id":"1068572137","price":"65083.67","size":"0.00038028","time":"2026-08-09T21:06:12.15207Z","side":"SELL"}]}]}`),
			[]byte(`{"type":"error","message":"failure to subscribe"}`),
			[]byte(`{"channel":"futures_balance_summary","events":[]}`),
			[]byte(`{"channel":"market_trades","events":[{"type":"update","trades":[{"product_id":"BTC-USD","trade_id":"1068572138","price":"abc","size":"1","time":"2026-08-09T21:06:12Z","side":"BUY"}]}]}`)},
		{"bybit", "", []string{"BTCUSDT"},
			[]byte(`{"topic":"publicTrade.BTCUSDT","type":"snapshot","ts":1786310819681,"data":[{"T":1786310819680,"s":"BTCUSDT","S":"Sell","v":"0.004","p":"65114.20","i":"2290000000123456789","BT":false}]}`),
			[]byte(`{"success":false,"ret_msg":"error:handler not found","conn_id":"x","req_id":"","op":"subscribe"}`),
			[]byte(`{"topic":"greeks.BTC","data":{}}`),
			[]byte(`{"topic":"publicTrade.BTCUSDT","data":[{"T":1786310819680,"s":"BTCUSDT","S":"Sideways","v":"1","p":"1","i":"x"}]}`)},
		{"hyperliquid", "", []string{"BTC"},
			[]byte(`{"channel":"trades","data":[{"coin":"BTC","hash":"0x00","px":"105056.0","side":"B","sz":"0.00219","tid":121451470284048,"time":1737918794873,"users":["0xa","0xb"]}]}`),
			[]byte(`{"channel":"error","data":"Invalid subscription {\"type\":\"tradez\"}"}`),
			[]byte(`{"channel":"notification","data":{}}`),
			[]byte(`{"channel":"trades","data":[{"coin":"BTC","px":"1","side":"B","sz":"1","tid":"nope","time":1737918794873}]}`)},
		{"kraken", "", []string{"BTC/USD"},
			[]byte(`{"channel":"trade","type":"update","data":[{"symbol":"BTC/USD","side":"buy","price":67013.0,"qty":0.01,"ord_type":"market","trade_id":80112242,"timestamp":"2024-08-08T23:54:14.250Z"}]}`),
			[]byte(`{"error":"Currency pair not supported XBT/USDX","method":"subscribe","success":false,"time_in":"2024-08-08T23:54:11Z","time_out":"2024-08-08T23:54:11Z"}`),
			[]byte(`{"channel":"level3","type":"snapshot","data":[]}`),
			[]byte(`{"channel":"trade","type":"update","data":[{"symbol":"BTC/USD","side":"buy","price":67013.0,"qty":0.01,"trade_id":80112243,"timestamp":"yesterday"}]}`)},
		{"okx", "", []string{"BTC-USDT"},
			[]byte(`{"arg":{"channel":"trades","instId":"BTC-USDT"},"data":[{"instId":"BTC-USDT","tradeId":"338476307","px":"30236","sz":"0.0002","side":"buy","ts":"1652459224818"}]}`),
			[]byte(`{"event":"error","code":"60018","msg":"Wrong URL or channel:trades,instId:BTC-USDX doesn't exist.","connId":"a4d3ae55"}`),
			[]byte(`{"id":"1","op":"order","code":"1","msg":"","data":[]}`),
			[]byte(`{"arg":{"channel":"trades","instId":"BTC-USDT"},"data":[{"instId":"BTC-USDT","tradeId":"338476308","px":"30236","sz":"0.0002","side":"buy","ts":"soon"}]}`)},
	}
	for _, c := range cases {
		t.Run(c.protocol, func(t *testing.T) {
			msgs := append([][]byte{}, common...)
			msgs = append(msgs, c.venueErr, c.unknown, c.badTrade, c.trade)
			srv := &venueServer{t: t, msgs: msgs, subs: 1, cutAfter: len(msgs) + 1,
				answer: func([]byte) ([]byte, error) { return nil, nil }}
			cfg := testConfig(c.protocol, c.venue, srv.start(), c.markets, nil)
			cfg.MaxMessageBytes = 4096
			conn, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			trades, rejects := collect(t, conn, 1, 8)
			wantPrefixes := []string{"malformed json", "malformed json", "malformed json", "oversized message", "unknown message type: binary",
				"venue error", "unknown message type", "bad "}
			if len(rejects) != len(wantPrefixes) {
				t.Fatalf("got %d rejects, want %d", len(rejects), len(wantPrefixes))
			}
			for i, r := range rejects {
				if !strings.HasPrefix(r.Reason, wantPrefixes[i]) || len(r.Raw) == 0 {
					t.Errorf("reject %d: reason %q, want prefix %q (raw %.60q)", i, r.Reason, wantPrefixes[i], r.Raw)
				}
			}
			if trades[0].Venue == "" || trades[0].Side == schemas.Side_SIDE_UNKNOWN {
				t.Errorf("trade after bad input: %+v", trades[0])
			}
			if st := conn.Stats(); st.Dials != 1 || st.Rejected != 8 {
				t.Errorf("stats %+v: want 1 dial and 8 rejected", st)
			}
		})
	}
}

// A block of messages the venue never delivered shows as one gap naming
// the missed trade ids, found from Binance's consecutive trade ids even
// though the stream is also reordered.
func TestBinanceGapDetection(t *testing.T) {
	c := binanceCase("binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz")
	path := fixtures.Path(t, "trades/"+c.file)
	msgs := c.msgs(t, path)
	cut, skip := len(msgs)/2, 400
	p, _, _ := NewDecoder("binance", "", "x")
	var missing []string
	for _, m := range msgs[cut : cut+skip] {
		for _, r := range p.Message(m, 1, nil) {
			if r.Trade != nil {
				missing = append(missing, r.Trade.TradeId)
			}
		}
	}
	if len(missing) == 0 {
		t.Fatal("the skipped block holds no trade; move it")
	}
	all := replayTrades(t, path, func(*schemas.Trade) bool { return true })
	srv := &venueServer{t: t, msgs: msgs, subs: 1, answer: c.answer, cutAfter: cut, overlap: -skip, swapEvery: 5}
	rec := &recorder{}
	conn, err := New(testConfig("binance", "", srv.start(), c.markets, rec))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	got, _, gapRecs := collectAll(t, conn, len(all)-len(missing), 0)
	if len(got) != len(all)-len(missing) {
		t.Fatalf("got %d trades", len(got))
	}
	var gaps []string
	rec.mu.Lock()
	for _, g := range rec.gaps {
		if strings.HasPrefix(g, "missed trades") {
			gaps = append(gaps, g)
		}
	}
	rec.mu.Unlock()
	want := "missed trades: " + strconv.Itoa(len(missing)) + " trade ids " + missing[0] + ".." + missing[len(missing)-1] + " of BTCUSDT"
	if len(gaps) != 1 || gaps[0] != want {
		t.Fatalf("gaps %q, want [%q]", gaps, want)
	}
	// The source yields the same gap as a record of the market's symbol,
	// between the event times of the trades around it, and a
	// "disconnected" gap for the cut connection.
	var byID = map[string]*schemas.Trade{}
	for _, x := range all {
		byID[x.TradeId] = x
	}
	first, _ := strconv.ParseInt(missing[0], 10, 64)
	last, _ := strconv.ParseInt(missing[len(missing)-1], 10, 64)
	before, after := byID[strconv.FormatInt(first-1, 10)], byID[strconv.FormatInt(last+1, 10)]
	var reasons []string
	for _, r := range gapRecs {
		reasons = append(reasons, r.Gap.Reason)
		if r.Symbol != "BTCUSD" || r.Trade != nil || r.Raw != nil {
			t.Errorf("gap record %+v", r)
		}
		if r.Gap.Reason == want && (r.Gap.FromNs != before.EventTimeNs || r.Gap.ToNs != after.EventTimeNs) {
			t.Errorf("gap %d..%d, want the times of trades %s and %s: %d..%d", r.Gap.FromNs, r.Gap.ToNs,
				before.TradeId, after.TradeId, before.EventTimeNs, after.EventTimeNs)
		}
	}
	if !slices.Equal(reasons, []string{"disconnected", want}) {
		t.Errorf("gap records %q, want [disconnected %q]", reasons, want)
	}
	if conn.Stats().GapTrades != uint64(len(missing)) {
		t.Errorf("GapTrades = %d, want %d", conn.Stats().GapTrades, len(missing))
	}
}

// A connection that goes silent past the idle timeout is dropped and dialed
// again; the venue's answer to the subscription alone does not count as life
// forever.
func TestIdleConnectionReconnects(t *testing.T) {
	srv := &venueServer{t: t, msgs: [][]byte{[]byte(`{"channel":"pong"}`)}, subs: 1, cutAfter: 2,
		answer: func([]byte) ([]byte, error) { return nil, nil }}
	rec := &recorder{}
	cfg := testConfig("hyperliquid", "", srv.start(), []string{"BTC"}, rec)
	cfg.IdleTimeout = 100 * time.Millisecond
	cfg.PingInterval = time.Hour // the server would answer nothing anyway
	conn, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// Runs until the deadline: nothing but a pong arrives, and a
	// "disconnected" gap record per reconnection.
	gaps := 0
	for {
		r, err := conn.Next(ctx)
		if err != nil {
			break
		}
		if r.Gap == nil || r.Symbol != "BTCUSD" || r.Gap.Reason != "disconnected" {
			t.Fatalf("record %+v, want only disconnect gaps", r)
		}
		gaps++
	}
	if gaps < 2 {
		t.Errorf("%d disconnect gap records, want one per reconnection", gaps)
	}
	if st := conn.Stats(); st.Dials < 3 {
		t.Fatalf("dials = %d after 2 s with a 100 ms idle timeout, want >= 3", st.Dials)
	}
}

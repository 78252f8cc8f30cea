package cex

import (
	"strings"
	"testing"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/venue/venuetest"
	"github.com/marketintel/mi/schemas"
)

// fuzzMessage feeds one live message to a fresh decoder of every
// protocol: no panic; trades valid; rejects carry a reason from the
// documented classes and the input they reject; every message is either a
// record or counted as skipped.
func fuzzMessage(t *testing.T, msg []byte) {
	for _, proto := range strings.Split(Protocols(), ", ") {
		fuzzProtocol(t, proto, msg)
	}
}

// fastPath is what every venue decoder has: the switch of its fast path.
type fastPath interface{ SetFastPath(on bool) }

func fuzzProtocol(t *testing.T, proto string, msg []byte) {
	{
		p, _, err := NewDecoder(proto, "", "live:"+proto)
		if err != nil {
			t.Fatal(err)
		}
		out := p.Message(msg, 1_700_000_000_000_000_000, []sources.Record(nil))
		if len(out) == 0 && p.Skipped() != 1 {
			t.Fatalf("%s: %q yields nothing and is not counted as skipped", proto, msg)
		}
		for _, r := range out {
			if r.Trade != nil {
				if err := schemas.Validate(r.Trade); err != nil {
					t.Fatalf("%s: invalid trade from %q: %v", proto, msg, err)
				}
				continue
			}
			if r.Reason == "" || (len(r.Raw) == 0 && len(msg) > 0) {
				t.Fatalf("%s: reject without reason or raw from %q", proto, msg)
			}
		}
		// The fast paths give what the general path gives.
		g, _, _ := NewDecoder(proto, "", "live:"+proto)
		g.(fastPath).SetFastPath(false)
		want := g.Message(msg, 1_700_000_000_000_000_000, nil)
		if d := venuetest.DiffRecords(out, want); d != "" || p.Skipped() != g.Skipped() {
			t.Fatalf("%s: fast path differs from the general path on %q: %s (skipped %d, %d)", proto, msg, d, p.Skipped(), g.Skipped())
		}
	}
}

var messageSeeds = []string{
	`{"stream":"btcusdt@trade","data":{"e":"trade","E":1723161255343,"s":"BTCUSDT","t":3735683259,"p":"61837.63000000","q":"0.02000000","T":1723161255342,"m":true,"M":true}}`,
	`{"stream":"btcusdt@bookTicker","data":{"u":50093239212,"s":"BTCUSDT","b":"61837.63","B":"3.7","a":"61837.64","A":"1.5"}}`,
	`{"result":null,"id":1}`,
	`{"error":{"code":2,"msg":"Invalid request"},"id":1}`,
	`{"channel":"market_trades","timestamp":"2026-08-09T21:06:12Z","sequence_num":5,"events":[{"type":"update","trades":[{"product_id":"BTC-USD","trade_id":"1068572137","price":"65083.67","size":"0.00038028","time":"2026-08-09T21:06:12.15207Z","side":"SELL"}]}]}`,
	`{"channel":"heartbeats","events":[{"heartbeat_counter":1}]}`,
	`{"type":"error","message":"failure to subscribe"}`,
	`{"topic":"publicTrade.BTCUSDT","type":"snapshot","ts":1786310819681,"data":[{"T":1786310819680,"s":"BTCUSDT","S":"Sell","v":"0.004","p":"65114.20","i":"a9188a0a-82bc-50de-be60-03eedbe3cdd7"}]}`,
	`{"success":true,"ret_msg":"pong","conn_id":"x","op":"ping"}`,
	`{"success":false,"ret_msg":"error:handler not found","op":"subscribe"}`,
	`{"channel":"trades","data":[{"coin":"BTC","hash":"0x00","px":"105056.0","side":"B","sz":"0.00219","tid":121451470284048,"time":1737918794873,"users":["0xa","0xb"]}]}`,
	`{"channel":"pong"}`,
	`{"channel":"error","data":"Invalid subscription"}`,
	`{"channel":"trade","type":"update","data":[{"symbol":"BTC/USD","side":"buy","price":67013.0,"qty":0.01,"ord_type":"market","trade_id":80112242,"timestamp":"2024-08-08T23:54:14.250Z"}]}`,
	`{"channel":"heartbeat"}`,
	`{"method":"subscribe","success":false,"error":"Currency pair not supported"}`,
	`{"channel":"trade","data":{}}`,
	`{"not closed`,
	`[]`,
	``,
	// OKX (messages of the real capture, pipeline/sources/venue/okx/testdata)
	`{"arg":{"channel":"trades","instId":"BTC-USDT"},"data":[{"instId":"BTC-USDT","tradeId":"338476307","px":"30236","sz":"0.0002","side":"buy","ts":"1652459224818"}]}`,
	`{"arg":{"channel":"trades","instId":"UNI-USD-SWAP"},"data":[{"instId":"UNI-USD-SWAP","tradeId":"12883020","px":"5.123","sz":"100","side":"sell","ts":"1652459215150"}]}`,
	`{"arg":{"channel":"tickers","instId":"BTC-USDT"},"data":[{"instType":"SPOT","instId":"BTC-USDT","last":"30236","lastSz":"0.0002"}]}`,
	`{"event":"subscribe","arg":{"channel":"trades","instId":"BTC-USDT"}}`,
	`{"event":"error","code":"60012","msg":"Invalid request"}`,
	`pong`,
}

func FuzzMessageParser(f *testing.F) {
	for _, s := range messageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(fuzzMessage)
}

// One fuzz target per live parser, seeded with every seed message.
func fuzzOne(f *testing.F, proto string) {
	for _, s := range messageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) { fuzzProtocol(t, proto, msg) })
}

func FuzzLiveBinance(f *testing.F)     { fuzzOne(f, "binance") }
func FuzzLiveCoinbase(f *testing.F)    { fuzzOne(f, "coinbase") }
func FuzzLiveBybit(f *testing.F)       { fuzzOne(f, "bybit") }
func FuzzLiveHyperliquid(f *testing.F) { fuzzOne(f, "hyperliquid") }
func FuzzLiveKraken(f *testing.F)      { fuzzOne(f, "kraken") }
func FuzzLiveOKX(f *testing.F)         { fuzzOne(f, "okx") }

// Each protocol sorts the seed messages into trades, skipped control
// messages, venue errors and unknown types.
func TestMessageParserClasses(t *testing.T) {
	f := func(proto, msg, want string) {
		t.Helper()
		p, _, err := NewDecoder(proto, "", "live")
		if err != nil {
			t.Fatal(err)
		}
		out := p.Message([]byte(msg), 1, nil)
		got := "skipped"
		if len(out) > 0 {
			if out[0].Trade != nil {
				got = "trade " + out[0].Trade.Symbol + " " + out[0].Trade.Side.String()
			} else {
				got = out[0].Reason
				if i := strings.IndexByte(got, ':'); i > 0 {
					got = got[:i]
				}
			}
		}
		if got != want {
			t.Errorf("%s %s: got %q, want %q", proto, msg, got, want)
		}
	}
	f("binance", messageSeeds[0], "trade BTCUSD SIDE_SELL") // m=true: the buyer was the maker
	f("binance", messageSeeds[1], "skipped")
	f("binance", messageSeeds[2], "skipped")
	f("binance", messageSeeds[3], "venue error")
	f("binance", messageSeeds[11], "unknown message type")
	f("coinbase", messageSeeds[4], "trade BTCUSD SIDE_BUY") // side is the maker's
	f("coinbase", messageSeeds[5], "skipped")
	f("coinbase", messageSeeds[6], "venue error")
	f("coinbase", messageSeeds[0], "unknown message type")
	f("bybit", messageSeeds[7], "trade BTCUSD SIDE_SELL")
	f("bybit", messageSeeds[8], "skipped")
	f("bybit", messageSeeds[9], "venue error")
	f("bybit", messageSeeds[4], "unknown message type")
	f("hyperliquid", messageSeeds[10], "trade BTCUSD SIDE_BUY")
	f("hyperliquid", messageSeeds[11], "skipped")
	f("hyperliquid", messageSeeds[12], "venue error")
	f("hyperliquid", messageSeeds[13], "unknown message type")
	f("kraken", messageSeeds[13], "trade BTCUSD SIDE_BUY")
	f("kraken", messageSeeds[14], "skipped")
	f("kraken", messageSeeds[15], "venue error")
	f("kraken", messageSeeds[10], "unknown message type")
	f("kraken", messageSeeds[16], "malformed trade message")
	f("okx", messageSeeds[20], "trade BTCUSD SIDE_BUY")  // side is the taker's
	f("okx", messageSeeds[21], "unknown contract value") // no instruments read
	f("okx", messageSeeds[22], "skipped")
	f("okx", messageSeeds[23], "skipped")
	f("okx", messageSeeds[24], "venue error")
	f("okx", messageSeeds[25], "skipped")
	f("okx", messageSeeds[10], "unknown message type")
	for _, proto := range strings.Split(Protocols(), ", ") {
		f(proto, messageSeeds[17], "malformed json")
	}
}

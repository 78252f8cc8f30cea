package cex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/schemas"
)

// e2eCase replays one capture through a local server speaking the venue's
// protocol and checks that the connector yields exactly the trades the
// replay source reads from the same file.
type e2eCase struct {
	protocol, venue string
	markets         []string
	file            string
	msgs            func(t *testing.T, path string) [][]byte
	keep            func(*schemas.Trade) bool
	subs            int
	answer          func(sub []byte) ([]byte, error)
	seqIDs          bool
}

func runE2E(t *testing.T, c e2eCase) {
	path := fixtures.Path(t, "trades/"+c.file)
	msgs := c.msgs(t, path)
	want := replayTrades(t, path, c.keep)
	if len(want) == 0 {
		t.Fatal("the capture holds no trades")
	}
	srv := &venueServer{t: t, msgs: msgs, subs: c.subs, answer: c.answer,
		cutAfter: len(msgs) / 2, overlap: min(200, len(msgs)/4), dupEvery: 7, swapEvery: 5}
	url := srv.start()
	rec := &recorder{}
	conn, err := New(testConfig(c.protocol, c.venue, url, c.markets, rec))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	got, rejects := collect(t, conn, len(want), 0)
	if len(rejects) > 0 {
		t.Fatalf("%d rejected records, first: %s (%.200s)", len(rejects), rejects[0].Reason, rejects[0].Raw)
	}
	sameTrades(t, got, want)
	st := conn.Stats()
	if st.Duplicates == 0 {
		t.Errorf("no duplicate dropped, but the server resent %d messages", srv.overlap)
	}
	if st.Dials < 2 {
		t.Errorf("dials = %d, want a reconnect after the cut", st.Dials)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.reconnects < 1 {
		t.Errorf("reconnects = %d, want >= 1", rec.reconnects)
	}
	for _, g := range rec.gaps {
		if strings.HasPrefix(g, "missed trades") {
			t.Errorf("gap reported though no trade was lost: %s", g)
		}
	}
	if !slices.Contains(rec.gaps, "disconnected") {
		t.Errorf("gaps %q: want the disconnect recorded", rec.gaps)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if c.protocol == "binance" && srv.queries[0] != "streams=btcusdt@trade" {
		t.Errorf("binance dialed with query %q, want the streams named", srv.queries[0])
	}
	if len(srv.subsSeen) < 2*c.subs {
		t.Errorf("server saw %d subscription messages, want %d per connection", len(srv.subsSeen), c.subs)
	}
}

func binanceCase(file string) e2eCase {
	return e2eCase{
		protocol: "binance", markets: []string{"BTCUSDT"}, file: file, subs: 1, seqIDs: true,
		msgs: func(t *testing.T, path string) [][]byte {
			var out [][]byte
			for _, m := range rawAfterTimestamp(readLines(t, path)) {
				if bytes.HasPrefix(m, []byte(`{"stream"`)) {
					out = append(out, m)
				}
			}
			return out
		},
		keep: func(*schemas.Trade) bool { return true },
		answer: func(sub []byte) ([]byte, error) {
			var s struct {
				Method string
				Params []string
				ID     int
			}
			if err := json.Unmarshal(sub, &s); err != nil || s.Method != "SUBSCRIBE" || !slices.Equal(s.Params, []string{"btcusdt@trade"}) {
				return nil, fmt.Errorf("want SUBSCRIBE [btcusdt@trade], err %v", err)
			}
			return fmt.Appendf(nil, `{"result":null,"id":%d}`, s.ID), nil
		},
	}
}

func TestBinanceReplayOverWebSocket(t *testing.T) {
	runE2E(t, binanceCase("binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz"))
}

func TestCoinbaseReplayOverWebSocket(t *testing.T) {
	runE2E(t, e2eCase{
		protocol: "coinbase", markets: []string{"BTC-USD", "ETH-USD"}, subs: 2, seqIDs: true,
		file: "cryptofeed_coinbase_advtrade_BTC-USD_ETH-USD_ws_capture.jsonl.gz",
		msgs: func(t *testing.T, path string) [][]byte { return cryptofeedRecv(t, readLines(t, path), "") },
		keep: func(*schemas.Trade) bool { return true },
		answer: func(sub []byte) ([]byte, error) {
			var s struct {
				Type       string
				ProductIDs []string `json:"product_ids"`
				Channel    string
			}
			if err := json.Unmarshal(sub, &s); err != nil || s.Type != "subscribe" || !slices.Equal(s.ProductIDs, []string{"BTC-USD", "ETH-USD"}) {
				return nil, fmt.Errorf("want subscribe to BTC-USD, ETH-USD, err %v", err)
			}
			if s.Channel != "market_trades" && s.Channel != "heartbeats" {
				return nil, fmt.Errorf("channel %q", s.Channel)
			}
			return fmt.Appendf(nil, `{"channel":"subscriptions","client_id":"","timestamp":"2026-08-09T21:05:48.2Z","sequence_num":0,"events":[{"subscriptions":{%q:["BTC-USD","ETH-USD"]}}]}`, s.Channel), nil
		},
	})
}

func bybitCase(venue, conn string, markets []string) e2eCase {
	return e2eCase{
		protocol: "bybit", venue: venue, markets: markets, subs: 1,
		file: "cryptofeed_bybit_linear_BTC_ETH_SOL_DOGE_ws_capture.jsonl.gz",
		msgs: func(t *testing.T, path string) [][]byte {
			var out [][]byte
			for _, m := range cryptofeedRecv(t, readLines(t, path), conn) {
				if !bytes.Contains(m, []byte(`"op":"subscribe"`)) { // the server answers subscriptions itself
					out = append(out, m)
				}
			}
			return out
		},
		keep: func(tr *schemas.Trade) bool { return tr.Venue == venue },
		answer: func(sub []byte) ([]byte, error) {
			var s struct {
				Op   string
				Args []string
			}
			if err := json.Unmarshal(sub, &s); err != nil || s.Op != "subscribe" || len(s.Args) != len(markets) {
				return nil, fmt.Errorf("want op subscribe with %d args, err %v", len(markets), err)
			}
			for i, m := range markets {
				if s.Args[i] != "publicTrade."+m {
					return nil, fmt.Errorf("arg %q", s.Args[i])
				}
			}
			return []byte(`{"success":true,"ret_msg":"","conn_id":"d8bu1olkndm7crnfs1e0-j6akw","req_id":"","op":"subscribe"}`), nil
		},
	}
}

func TestBybitSpotReplayOverWebSocket(t *testing.T) {
	runE2E(t, bybitCase("bybit", "BYBIT.ws.3", []string{"BTCUSDT", "ETHUSDT"}))
}

func TestBybitLinearReplayOverWebSocket(t *testing.T) {
	runE2E(t, bybitCase("bybit_linear", "BYBIT.ws.2", []string{"BTCUSDT", "ETHUSDT", "SOLUSDT", "DOGEUSDT"}))
}

func TestHyperliquidReplayOverWebSocket(t *testing.T) {
	runE2E(t, e2eCase{
		protocol: "hyperliquid", markets: []string{"BTC"}, subs: 1,
		file: "hyperliquid_BTC_ws_raw_2025-01-26.txt.gz",
		msgs: func(t *testing.T, path string) [][]byte { return rawAfterTimestamp(readLines(t, path)) },
		keep: func(*schemas.Trade) bool { return true },
		answer: func(sub []byte) ([]byte, error) {
			var s struct {
				Method       string
				Subscription struct{ Type, Coin string }
			}
			if err := json.Unmarshal(sub, &s); err != nil || s.Method != "subscribe" || s.Subscription.Type != "trades" || s.Subscription.Coin != "BTC" {
				return nil, fmt.Errorf("want subscribe trades BTC, err %v", err)
			}
			return []byte(`{"channel":"subscriptionResponse","data":{"method":"subscribe","subscription":{"type":"trades","coin":"BTC"}}}`), nil
		},
	})
}

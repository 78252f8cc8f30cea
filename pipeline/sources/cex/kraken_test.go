package cex

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

// No Kraken capture exists in the fixtures: testdata/kraken_v2_handwritten.jsonl
// holds messages written by hand from Kraken's WebSocket v2 documentation
// (channel "trade", snapshot and update; status, heartbeat, pong), and the
// expected trades below are computed by hand from them.
func TestKrakenHandwrittenOverWebSocket(t *testing.T) {
	msgs := readLines(t, "testdata/kraken_v2_handwritten.jsonl")
	ts := func(s string) int64 {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UnixNano()
	}
	tr := func(market, sym, id string, side schemas.Side, price, size float64, at string) *schemas.Trade {
		return &schemas.Trade{Venue: "kraken", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, Market: market, VenueSymbol: market,
			Symbol: sym, TradeId: id, Side: side, Price: price, Size: size, NotionalUsd: price * size, EventTimeNs: ts(at)}
	}
	buy, sell := schemas.Side_SIDE_BUY, schemas.Side_SIDE_SELL
	want := []*schemas.Trade{
		tr("BTC/USD", "BTCUSD", "80112240", sell, 67012.4, 0.00452, "2024-08-08T23:54:12.101885Z"),
		tr("BTC/USD", "BTCUSD", "80112241", buy, 67012.5, 0.125, "2024-08-08T23:54:13Z"),
		tr("ETH/USD", "ETHUSD", "55001010", buy, 2689.07, 1.5, "2024-08-08T23:54:12.5Z"),
		tr("BTC/USD", "BTCUSD", "80112242", buy, 67013.0, 0.01, "2024-08-08T23:54:14.25Z"),
		tr("BTC/USD", "BTCUSD", "80112243", sell, 67011.9, 0.3, "2024-08-08T23:54:15Z"),
		tr("BTC/USD", "BTCUSD", "80112244", sell, 67011.8, 0.2, "2024-08-08T23:54:15Z"),
		tr("ETH/USD", "ETHUSD", "55001011", sell, 2688.9, 0.75, "2024-08-08T23:54:16.75Z"),
	}
	srv := &venueServer{t: t, msgs: msgs, subs: 1, cutAfter: 5, overlap: 3, dupEvery: 2, swapEvery: 3,
		answer: func(sub []byte) ([]byte, error) {
			var s struct {
				Method string
				Params struct {
					Channel  string
					Symbol   []string
					Snapshot bool
				}
			}
			if err := json.Unmarshal(sub, &s); err != nil || s.Method != "subscribe" || s.Params.Channel != "trade" ||
				!slices.Equal(s.Params.Symbol, []string{"BTC/USD", "ETH/USD"}) || !s.Params.Snapshot {
				return nil, fmt.Errorf("want subscribe trade [BTC/USD ETH/USD] snapshot, err %v", err)
			}
			return []byte(`{"method":"subscribe","result":{"channel":"trade","snapshot":true,"symbol":"BTC/USD"},"success":true,"time_in":"2024-08-08T23:54:11.9Z","time_out":"2024-08-08T23:54:11.91Z"}`), nil
		}}
	rec := &recorder{}
	conn, err := New(testConfig("kraken", "", srv.start(), []string{"BTC/USD", "ETH/USD"}, rec))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	got, rejects := collect(t, conn, len(want), 0)
	if len(rejects) != 0 {
		t.Fatalf("rejected: %s", rejects[0].Reason)
	}
	sameTrades(t, got, want)
	if st := conn.Stats(); st.Duplicates == 0 || st.Dials < 2 {
		t.Errorf("stats %+v: want duplicates dropped and a reconnect", st)
	}
}

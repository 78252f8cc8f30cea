package cex

import (
	"encoding/json"

	"github.com/marketintel/mi/pipeline/sources/venue/kraken"
)

// Kraken WebSocket v2, channel "trade" with a snapshot of the last 50
// trades on subscribe. Kraken sends a "heartbeat" message every second once
// subscribed; the connector also sends {"method":"ping"} (answered with a
// "pong" method message). trade_id is sequential per pair, so a jump is a
// missed trade.
//
// Aggressor side: "side" is the side of the taker order, so it is the
// aggressor as is.
func init() {
	register("kraken", venue{
		url: "wss://ws.kraken.com/v2",
		subscribe: func(markets []string) [][]byte {
			b, _ := json.Marshal(map[string]any{"method": "subscribe",
				"params": map[string]any{"channel": "trade", "symbol": markets, "snapshot": true}})
			return [][]byte{b}
		},
		ping:   []byte(`{"method":"ping"}`),
		seqIDs: true,
		decoder: func(_, source string) (Decoder, string, error) {
			return kraken.New(source), kraken.Venue, nil
		},
	})
}

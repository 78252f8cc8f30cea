package cex

import (
	"encoding/json"

	"github.com/marketintel/mi/pipeline/sources/venue/coinbase"
)

// Coinbase Advanced Trade, channel market_trades (public, no
// authentication). The connection also subscribes to "heartbeats", which
// Coinbase sends every second and which keeps an otherwise quiet connection
// open. Subscribing replays the last trades of each product as a "snapshot"
// event, so after a reconnect the overlap is dropped as duplicates and what
// is still missing shows as a trade-id gap (ids are consecutive per product).
//
// Aggressor side: the trade's "side" is the MAKER's side (a SELL prints at
// the best ask: a resting sell was lifted by a buyer), as in the legacy
// Exchange feed's `match` messages, so the aggressor is the opposite side.
func init() {
	register("coinbase", venue{
		url: "wss://advanced-trade-ws.coinbase.com",
		subscribe: func(markets []string) [][]byte {
			var out [][]byte
			for _, ch := range []string{"market_trades", "heartbeats"} {
				b, _ := json.Marshal(map[string]any{"type": "subscribe", "product_ids": markets, "channel": ch})
				out = append(out, b)
			}
			return out
		},
		seqIDs: true,
		decoder: func(_, source string) (Decoder, string, error) {
			return coinbase.New(source), coinbase.Venue, nil
		},
	})
}

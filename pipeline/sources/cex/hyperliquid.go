package cex

import (
	"encoding/json"

	"github.com/marketintel/mi/pipeline/sources/venue/hyperliquid"
)

// Hyperliquid, subscription {"type":"trades","coin":...} (perps, quoted in
// USDC). Hyperliquid closes a connection idle for 60 s, so the connector
// sends {"method":"ping"} (answered {"channel":"pong"}). Trade ids (tid) are
// not consecutive, so a disconnect is recorded as a gap in time.
//
// Aggressor side: "side" is the aggressor: "B" bought (lifted the ask), "A"
// sold (hit the bid). users is [buyer, seller]; the trade's wallet is the
// aggressor's address.
func init() {
	register("hyperliquid", venue{
		url: "wss://api.hyperliquid.xyz/ws",
		subscribe: func(markets []string) [][]byte {
			out := make([][]byte, len(markets))
			for i, m := range markets {
				out[i], _ = json.Marshal(map[string]any{"method": "subscribe",
					"subscription": map[string]any{"type": "trades", "coin": m}})
			}
			return out
		},
		ping: []byte(`{"method":"ping"}`),
		decoder: func(_, source string) (Decoder, string, error) {
			return hyperliquid.New(source), hyperliquid.Venue, nil
		},
	})
}

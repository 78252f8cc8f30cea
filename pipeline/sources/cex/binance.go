package cex

import (
	"encoding/json"
	"strings"
)

// Binance spot, stream <symbol>@trade on the combined-stream endpoint
// (messages {"stream":..., "data":{...}}). Binance sends WebSocket pings
// every 20 s and the client library answers them; the connector pings too.
// Trade ids ("t") are consecutive per symbol, so a jump is a missed trade.
//
// Aggressor side: "m" is true when the buyer was the maker, so a seller
// crossed the spread: m=true is a SELL, m=false a BUY.
func init() {
	register("binance", venue{
		url: "wss://stream.binance.com:9443/stream",
		subscribe: func(markets []string) [][]byte {
			params := make([]string, len(markets))
			for i, m := range markets {
				params[i] = strings.ToLower(m) + "@trade"
			}
			b, _ := json.Marshal(map[string]any{"method": "SUBSCRIBE", "params": params, "id": 1})
			return [][]byte{b}
		},
		seqIDs: true,
	})
}

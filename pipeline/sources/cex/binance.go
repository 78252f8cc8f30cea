package cex

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/marketintel/mi/pipeline/sources/venue/binance"
)

// Binance spot, stream <symbol>@trade on the combined-stream endpoint
// (messages {"stream":..., "data":{...}}): the streams are named in the URL
// (/stream?streams=btcusdt@trade/ethusdt@trade, unless the configured URL
// has a query already) and subscribed again with SUBSCRIBE, which Binance
// answers {"result":null,"id":1}. Binance sends WebSocket pings
// every 20 s and the client library answers them; the connector pings too.
// Trade ids ("t") are consecutive per symbol, so a jump is a missed trade.
//
// Aggressor side: "m" is true when the buyer was the maker, so a seller
// crossed the spread: m=true is a SELL, m=false a BUY.
func init() {
	register("binance", venue{
		url: "wss://stream.binance.com:9443/stream",
		subscribe: func(markets []string) [][]byte {
			b, _ := json.Marshal(map[string]any{"method": "SUBSCRIBE", "params": streams(markets), "id": 1})
			return [][]byte{b}
		},
		dialURL: func(url string, markets []string) string {
			if strings.Contains(url, "?") {
				return url
			}
			return url + "?streams=" + strings.Join(streams(markets), "/")
		},
		seqIDs: true,
		decoder: func(venueID, source string) (Decoder, string, error) {
			if venueID == "" {
				venueID = binance.Spot
			}
			if venueID != binance.Spot && venueID != binance.USDM {
				return nil, "", fmt.Errorf("cannot decode binance messages for venue %q: accepted %s, %s", venueID, binance.Spot, binance.USDM)
			}
			d, err := binance.New(venueID, source)
			return d, venueID, err
		},
	})
}

// streams names the trade streams of markets: "BTCUSDT" -> "btcusdt@trade".
func streams(markets []string) []string {
	out := make([]string, len(markets))
	for i, m := range markets {
		out[i] = strings.ToLower(m) + "@trade"
	}
	return out
}

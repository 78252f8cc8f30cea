package cex

import (
	"encoding/json"

	"github.com/marketintel/mi/pipeline/sources/venue/bybit"
)

// Bybit v5 public streams, topic publicTrade.<symbol>. The endpoint path
// selects the market type: /v5/public/spot (venue "bybit"), /linear
// ("bybit_linear"), /inverse ("bybit_inverse"); set Config.Venue to match
// the URL. Bybit drops a connection that sends nothing for 20 s, so the
// connector sends {"op":"ping"} (answered {"op":"pong"} or
// {"ret_msg":"pong"}). Trade ids are UUIDs on derivatives and not
// consecutive, so missed trades cannot be told from ids: a disconnect is
// recorded as a gap in time.
//
// Aggressor side: "S" is the taker's side (Buy / Sell), the aggressor as is.
func init() {
	register("bybit", venue{
		url: "wss://stream.bybit.com/v5/public/spot",
		subscribe: func(markets []string) [][]byte {
			args := make([]string, len(markets))
			for i, m := range markets {
				args[i] = "publicTrade." + m
			}
			b, _ := json.Marshal(map[string]any{"op": "subscribe", "args": args})
			return [][]byte{b}
		},
		ping: []byte(`{"op":"ping"}`),
		decoder: func(venueID, source string) (Decoder, string, error) {
			d, err := bybit.New(venueID, source)
			if err != nil {
				return nil, "", err
			}
			return d, d.Venue(), nil
		},
	})
}

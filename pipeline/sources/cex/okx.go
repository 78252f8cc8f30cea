package cex

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/marketintel/mi/pipeline/sources/venue/okx"
)

// OKX v5 public WebSocket, channel "trades", one endpoint for spot
// instruments (BTC-USDT, venue "okx") and perpetual swaps (BTC-USDT-SWAP,
// BTC-USD-SWAP, venue "okx_swap"). OKX closes a connection that receives
// nothing for 30 s: the connector sends the text "ping" every
// PingInterval (default 20 s), answered "pong". Swap sizes are in
// contracts: before each connection the connector reads the contract
// values (ctVal, ctMult, ctValCcy) of the swaps from the public instruments
// endpoint (Config.InstrumentsURL ?instType=SWAP, a conditional GET through
// the polite HTTP client); without them it does not connect (retrying
// with backoff), and a refresh that fails keeps the table it has. Trade
// ids are per instrument but OKX may aggregate fills of one taker order
// into one trade ("count"), so a jump in ids is not a missed trade:
// disconnects are recorded as gaps in time.
//
// Aggressor side: "side" is the taker's side ("Trade side of taker"), the
// aggressor as is.
func init() {
	register("okx", venue{
		url: "wss://ws.okx.com:8443/ws/v5/public",
		subscribe: func(markets []string) [][]byte {
			args := make([]map[string]string, len(markets))
			for i, m := range markets {
				args[i] = map[string]string{"channel": "trades", "instId": m}
			}
			b, _ := json.Marshal(map[string]any{"op": "subscribe", "args": args})
			return [][]byte{b}
		},
		ping:    []byte("ping"),
		prepare: okxContracts,
		decoder: func(venueID, source string) (Decoder, string, error) {
			if venueID != "" && venueID != okx.Spot {
				return nil, "", fmt.Errorf("cannot decode okx messages for venue %q: one connector takes spot and swap markets; leave venue empty", venueID)
			}
			return okx.New(source), okx.Spot, nil
		},
	})
}

// okxInstrumentsURL is OKX's public instruments endpoint.
const okxInstrumentsURL = "https://www.okx.com/api/v5/public/instruments"

// okxContracts reads the contract values of the swaps among the
// connector's markets into its decoder.
func okxContracts(ctx context.Context, c *Conn) error {
	swaps := false
	for _, m := range c.cfg.Markets {
		swaps = swaps || strings.HasSuffix(m, "-SWAP")
	}
	if !swaps {
		return nil
	}
	d := c.decoder.(*okx.Decoder)
	base := c.cfg.InstrumentsURL
	if base == "" {
		base = okxInstrumentsURL
	}
	u, err := url.Parse(base)
	if err != nil {
		return fmt.Errorf("cannot read OKX contract values: instrumentsUrl %q: %w", base, err)
	}
	q := u.Query()
	q.Set("instType", "SWAP")
	u.RawQuery = q.Encode()
	resp, err := c.cfg.HTTP.Get(ctx, u.String())
	if err == nil && !resp.NotModified {
		_, err = d.Instruments(resp.Body)
	}
	switch {
	case err == nil:
		if resp.NotModified && d.Contracts() == 0 {
			return fmt.Errorf("cannot read OKX contract values from %s: 304 Not Modified, but none are known", u)
		}
		return nil
	case d.Contracts() > 0:
		c.log.Warn("cannot refresh OKX contract values; keeping the ones read before", "source", c.cfg.Name, "url", u.String(), "err", err)
		return nil
	}
	return fmt.Errorf("cannot read OKX contract values from %s: %w", u, err)
}

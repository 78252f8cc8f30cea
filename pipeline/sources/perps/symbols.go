package perps

import (
	"strings"

	"github.com/marketintel/mi/pipeline/symbols"
)

// Normalize maps a venue's perp to the normalized symbol and the asset class
// the symbol registry gives it ("crypto", "us_equity", "perp_only", or ""
// when the registry does not cover the symbol). It is the only place this
// package maps symbols, so a change of the registry's rules lands here.
//
//   - binance, bybit: USDT- and USDC-margined linear perps, BTCUSDT → BTCUSD,
//     1000PEPEUSDT → KPEPEUSD (perp_only); dated futures do not map.
//   - hyperliquid: the coin alone, BTC → BTCUSD, kPEPE → KPEPEUSD; a HIP-3
//     builder dex prefixes its perps, xyz:TSLA → TSLA (us_equity): the dex
//     name is dropped and the rest follows the same rule. Spot pairs (@107)
//     and outcome coins (#1230) do not map.
//
// ok is false when the venue symbol does not map to a USD symbol.
func Normalize(venue, venueSymbol string) (symbol, class string, ok bool) {
	s := venueSymbol
	if venue == VenueHyperliquid {
		if i := strings.IndexByte(s, ':'); i >= 0 {
			dex := s[:i]
			if dex == "" || !isLowerAlnum(dex) {
				return "", "", false
			}
			s = s[i+1:]
		}
		if s == "" || s[0] == '@' || s[0] == '#' {
			return "", "", false
		}
	}
	sym, ok := symbols.Normalize(venue, s)
	if !ok {
		return "", "", false
	}
	if a, covered := symbols.LookupAsset(sym); covered {
		class = string(a.Class)
	}
	return sym, class, true
}

func isLowerAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Venue ids, as records and answers spell them.
const (
	VenueBinance     = "binance"
	VenueBybit       = "bybit"
	VenueHyperliquid = "hyperliquid"
)

package query

import "testing"

// specPrices are the prices per call of spec §8 in micro-USD, keyed by the
// route as the table spells it. A route of the table listed here must carry
// this price; routes the service has not built yet are simply absent.
var specPrices = map[string]int64{
	"GET /api/v1/intelligence/snapshot/:symbol":    1_000,
	"GET /api/v1/news":                             3_000,
	"GET /api/v1/news/symbol":                      3_000,
	"GET /api/v1/intelligence/:symbol":             5_000,
	"GET /api/v1/intelligence/top-momentum":        5_000,
	"GET /api/v1/intelligence/top-activity":        5_000,
	"GET /api/v1/intelligence/buying":              5_000,
	"GET /api/v1/intelligence/selling":             5_000,
	"GET /api/v1/intelligence/regime":              5_000,
	"GET /api/v1/intelligence/pre-trade":           5_000,
	"GET /api/v1/intelligence/equities":            5_000,
	"GET /api/v1/intelligence/candles/:symbol":     5_000,
	"GET /api/v1/intelligence/track-record":        5_000,
	"GET /api/v1/fundamentals/:symbol":             5_000,
	"GET /api/v1/rates/curve":                      5_000,
	"GET /api/v1/rates/defi-spread":                5_000,
	"GET /api/v1/rates/auctions":                   5_000,
	"GET /api/v1/intelligence":                     10_000,
	"GET /api/v1/intelligence/summary":             10_000,
	"GET /api/v1/intelligence/unusual":             10_000,
	"GET /api/v1/intelligence/events":              10_000,
	"GET /api/v1/intelligence/compare":             10_000,
	"GET /api/v1/intelligence/token/:address":      10_000,
	"GET /api/v1/intelligence/premium":             10_000,
	"GET /api/v1/intelligence/premium/:symbol":     10_000,
	"GET /api/v1/insiders/:symbol":                 10_000,
	"GET /api/v1/intelligence/positioning/:symbol": 10_000,
	"GET /api/v1/rates/tokenized-treasuries":       10_000,
	"GET /api/v1/datasets/:symbol":                 20_000,
	"GET /api/v1/intelligence/token-risk/:address": 20_000,
	"GET /api/v1/intelligence/smart-money/:symbol": 20_000,
	"GET /api/v1/intelligence/opportunities":       30_000,
	"POST /api/v1/intelligence/opportunities":      30_000,
	"GET /api/v1/agent/opportunities":              30_000,
	"POST /api/v1/agent/opportunities":             30_000,
	"GET /api/v1/intelligence/query":               50_000,
	"GET /api/v1/intelligence/backtest":            50_000,
	"POST /api/v1/alerts/subscriptions":            500_000,
	"POST /api/v1/credits/buy/5":                   5_000_000,
	"POST /api/v1/credits/buy/20":                  20_000_000,
	"POST /api/v1/credits/buy/50":                  50_000_000,
	"POST /mcp":                                    10_000,
	"GET /api/v1/preview":                          0,
	"GET /status":                                  0,
	"GET /transparency":                            0,
	"GET /track-record":                            0,
	"GET /coverage":                                0,
	"GET /api/v1/datasets":                         0,
	"GET /api/v1/intelligence/backtest/:id":        0,
	"GET /.well-known/x402-resources":              0,
	"GET /x402-resources":                          0,
	"GET /.well-known/security.txt":                0,
	"GET /pricing":                                 0,
	"GET /api/v1/credits/balance":                  0,
	"GET /api/v1/alerts/subscriptions/:id":         0,
	"DELETE /api/v1/alerts/subscriptions/:id":      0,
	"POST /api/v1/alerts/subscriptions/:id/test":   0,
	"POST /api/v1/alerts/subscriptions/:id/resume": 0,
	"GET /api/v1/alerts/subscriptions/:id/events":  0,
}

func TestSpecPrices(t *testing.T) {
	for _, r := range newTestServer(nil, nil).Operations() {
		want, ok := specPrices[r.Method+" "+r.Path]
		if ok && r.Price != want {
			t.Errorf("%s %s costs %d micro-USD, spec §8 says %d", r.Method, r.Path, r.Price, want)
		}
	}
}

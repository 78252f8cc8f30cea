package history_test

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/history/histtest"
	"github.com/marketintel/mi/query/openapi"
	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/querytest"
)

// premiumFixture stores 1m candles of tokenized stocks on a Solana DEX
// (group A) and an EVM DEX (group B) and serves the history routes at
// 15:07 UTC on Monday 2026-01-05 (10:07 in New York, REGULAR).
func premiumFixture(t *testing.T) (*fiber.App, *querytest.OpenAPI) {
	t.Helper()
	root := t.TempDir()
	w := histtest.New(t, root)
	c := func(sym, venue string, hh, mm int, price, vol float64) datasets.Candle {
		k := histtest.Flat(sym, venue, day0.Add(time.Duration(hh)*time.Hour+time.Duration(mm)*time.Minute), price, vol)
		k.VenueKind, k.Chain = "onchain_dex", "ethereum"
		switch venue {
		case "raydium":
			k.VenueKind, k.Chain = "solana_dex", "solana"
		case "kraken":
			k.VenueKind, k.Chain = "cex", ""
		}
		return k
	}
	w.Candles("1m", false, []datasets.Candle{
		c("TSLA", "raydium", 12, 0, 249, 1), c("TSLA", "uniswap", 12, 3, 250, 1), // 07:00 New York, outside the hour
		c("TSLA", "raydium", 14, 20, 250.5, 2), c("TSLA", "uniswap", 14, 22, 250, 4),
		c("TSLA", "raydium", 14, 45, 251, 1), c("TSLA", "uniswap", 14, 50, 250, 1),
		c("NVDA", "raydium", 14, 30, 119, 1), c("NVDA", "uniswap", 14, 31, 120, 1),
		c("AAPL", "uniswap", 14, 31, 190, 1), // one group only
		c("TSLA", "kraken", 14, 45, 999, 9),  // not a group
	})
	now := day0.Add(15*time.Hour + 7*time.Minute)
	s, err := history.Open(history.Config{DataDir: root, MemoryLimit: "256MB", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ops := history.NewRoutes(s, func() time.Time { return now }).Operations()
	app := fiber.New()
	api.Mount(app, ops, func() time.Time { return now }, nil)
	return app, querytest.NewOpenAPI(t, openapi.Build(ops, paywall.Responses()), app)
}

func bp(a, b float64) float64 { return 1e4 * (a/b - 1) }

func TestPremiumRoutes(t *testing.T) {
	app, f := premiumFixture(t)
	get := func(target string, code int, v any) string {
		t.Helper()
		req, resp, body := f.Send(t, http.MethodGet, target)
		if resp.StatusCode != code {
			t.Fatalf("%s: %d %s", target, resp.StatusCode, body)
		}
		if ok, errs := f.V.ValidateHttpResponse(req, resp); !ok {
			t.Fatalf("%s: %s:%s", target, body, querytest.DescribeErrors(errs))
		}
		if v != nil {
			if err := json.Unmarshal(body, v); err != nil {
				t.Fatal(err)
			}
		}
		return string(body)
	}
	var list struct {
		Premiums []struct {
			Symbol                     string
			PremiumBp                  float64
			BinStart                   string
			VolumeUsd1hA, VolumeUsd1hB float64
			Session                    string
		}
		WithoutPremium []string
		AsOf, Session  string
	}
	get("/api/v1/intelligence/premium", 200, &list)
	if len(list.Premiums) != 2 || list.Premiums[0].Symbol != "NVDA" || list.Premiums[1].Symbol != "TSLA" {
		t.Fatalf("order by |premium|: %+v", list)
	}
	ts := list.Premiums[1]
	// The latest bin with both groups in the hour before 15:00 is 14:45.
	if math.Abs(ts.PremiumBp-bp(251, 250)) > 1e-9 || ts.BinStart != "2026-01-05T14:45:00Z" || ts.Session != "REGULAR" ||
		ts.VolumeUsd1hA != 250.5*2+251 || ts.VolumeUsd1hB != 250*4+250 {
		t.Fatalf("TSLA %+v", ts)
	}
	if math.Abs(list.Premiums[0].PremiumBp-bp(119, 120)) > 1e-9 || list.AsOf != "2026-01-05T15:00:00Z" || list.Session != "REGULAR" {
		t.Fatalf("NVDA %+v", list)
	}
	if !strings.Contains(strings.Join(list.WithoutPremium, ","), "AAPL") {
		t.Fatalf("withoutPremium %v", list.WithoutPremium)
	}
	get("/api/v1/intelligence/premium?symbols=tsla", 200, &list)
	if len(list.Premiums) != 1 || list.Premiums[0].Symbol != "TSLA" {
		t.Fatalf("filter %+v", list)
	}

	var series struct {
		Points []struct {
			Time      string
			PremiumBp float64
			Session   string
		}
		Stats struct {
			Points                 int
			MedianBp, MinBp, MaxBp float64
		}
		Sessions []struct {
			Session string
			Points  int
		}
	}
	get("/api/v1/intelligence/premium/TSLA", 200, &series)
	if len(series.Points) != 3 || series.Points[0].Session != "PRE_MARKET" || series.Points[2].Session != "REGULAR" ||
		series.Stats.Points != 3 || math.Abs(series.Stats.MedianBp-bp(250.5, 250)) > 1e-9 || math.Abs(series.Stats.MinBp-bp(249, 250)) > 1e-9 ||
		len(series.Sessions) != 2 || series.Sessions[0].Session != "PRE_MARKET" || series.Sessions[0].Points != 2 {
		t.Fatalf("series %+v", series)
	}
	get("/api/v1/intelligence/premium/TSLA?interval=1h&hours=2", 200, &series)
	// 14:00–15:00 as one bin: A = (250.5·2 + 251)/3, B = 250.
	if len(series.Points) != 1 || math.Abs(series.Points[0].PremiumBp-bp((250.5*2+251)/3, 250)) > 1e-9 {
		t.Fatalf("1h series %+v", series)
	}

	for target, want := range map[string]string{
		"/api/v1/intelligence/premium?symbols=BTCUSD":   `"symbols"`,
		"/api/v1/intelligence/premium/TSLA?interval=5m": `"interval"`,
		"/api/v1/intelligence/premium/TSLA?hours=0":     `"hours"`,
		"/api/v1/intelligence/premium/TSLA?hours=169":   `"hours"`,
	} {
		if body := get(target, 400, nil); !strings.Contains(body, want) {
			t.Fatalf("%s: %s", target, body)
		}
	}
	get("/api/v1/intelligence/premium/BTCUSD", 404, nil)
	get("/api/v1/intelligence/premium/AAPL", 404, nil)
	_ = app
}

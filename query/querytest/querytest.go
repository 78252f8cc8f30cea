// Package querytest holds the fixtures of the query tier's tests: a fixed
// clock, intelligence documents with every field set, and a one-call
// request helper.
package querytest

import (
	"io"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/schemas"
)

// Now is the fixed clock of the tests: 2024-08-08T12:00:00Z.
var Now = time.Date(2024, 8, 8, 12, 0, 0, 0, time.UTC)

// FullDoc returns a document with every field set to a distinct value.
func FullDoc() *schemas.IntelligenceDocument {
	ts := Now.Add(-1500 * time.Millisecond).UnixNano()
	return &schemas.IntelligenceDocument{
		Id:                            "BTCUSD|5m|1723118398500000000",
		Symbol:                        "BTCUSD",
		Window:                        "5m",
		Price:                         61234.5,
		Volume:                        1.25e6,
		BuyVolume:                     800000.25,
		SellVolume:                    449999.75,
		BuyPressure:                   64.00002,
		BuySellRatio:                  1.7777784,
		BuySellImbalance:              28.00004,
		PriceChangePercent:            -0.42,
		VolumeAcceleration:            2.5,
		TradeAcceleration:             1.75,
		MomentumScore:                 71.3,
		ActivityScore:                 88.1,
		AnomalyScore:                  42,
		ConfidenceScore:               95.5,
		AverageTradeSize:              2083.3333333333335,
		TradeRatePerMinute:            120,
		VolumeRatePerMinute:           250000,
		PriceChangePerMinute:          -0.084,
		TradeCount:                    600,
		LargeTradeCount:               7,
		LargeBuyVolume:                300000,
		LargeSellVolume:               120000,
		MaxTradeSize:                  3.2,
		MaxTradeNotional:              195950.4,
		DominantSide:                  "BUY",
		Signal:                        "BULLISH",
		SignalStrength:                "HIGH",
		TimestampNs:                   ts,
		PreviousSignal:                "NEUTRAL",
		SignalChangedAtNs:             ts - 90*int64(time.Second),
		SignalAgeSeconds:              90,
		ActivityMultiple:              3.1,
		VolumeMultiple:                2.9,
		ActivityZScore:                2.2,
		VolumeZScore:                  -1e-7,
		BaselineSamples:               48,
		BaselineReady:                 true,
		MarketPercentile:              97.5,
		RelativeMomentumPercentile:    80,
		RelativeBuyPressurePercentile: 66.6,
		EventType:                     "UNUSUAL_ACTIVITY",
		LifecycleState:                "PERSISTING",
		Observations: &schemas.Observations{
			Quality: &schemas.Quality{
				LateTrades:       3,
				DuplicateTrades:  1,
				UnknownSideShare: 0.05,
				Venues:           []string{"binance", "coinbase"},
				VenueCount:       2,
				Gaps: []*schemas.Gap{{
					Source: "ws:coinbase",
					FromNs: ts - 30*int64(time.Second),
					ToNs:   ts - 20*int64(time.Second),
					Reason: "reconnect",
				}},
			},
			WindowSeconds:            300,
			PreviousVolume:           500000,
			PreviousTradeCount:       343,
			FirstPrice:               61492.77,
			LargeTradeThresholdUsd:   100000,
			High:                     61600,
			Low:                      61100.01,
			Vwap:                     61320.123,
			BaselineVolumeMedian:     431034.48,
			BaselineTradeCountMedian: 190,
		},
		Interpretation: &schemas.Interpretation{
			Momentum:         "bearish",
			Activity:         "very high",
			Buying:           "strong",
			RelativeStrength: "top decile",
		},
		Evidence:        []string{"volume 2.9x baseline", `buy pressure 64% "strong" <> & 🚀`},
		LastTradeTimeNs: ts,
	}
}

// SmallDoc returns a document with the ranking fields set.
func SmallDoc(symbol, window string, trades int64, volume float64) *schemas.IntelligenceDocument {
	return &schemas.IntelligenceDocument{
		Id:          symbol + "|" + window,
		Symbol:      symbol,
		Window:      window,
		TradeCount:  trades,
		Volume:      volume,
		TimestampNs: Now.UnixNano(),
	}
}

// Do sends one request through app and returns status, content type and body.
func Do(t *testing.T, app *fiber.App, method, target string) (int, string, string) {
	t.Helper()
	resp, err := app.Test(httptest.NewRequest(method, target, nil))
	if err != nil {
		t.Fatalf("cannot send %s %s: %s", method, target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("cannot read the body of %s %s: %s", method, target, err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
}

// Package perpsreplay lists the real perps captures of the shared fixtures
// (../shared/fixtures/perps, see SOURCES.md) as internal/pubreplay routes
// at the venues' own paths, and the positioning sources entries that read
// them, so the end-to-end tests and the offline demo poll them exactly as
// they poll Binance, Bybit and Hyperliquid.
//
// Served: Binance's premium index, 1-hour open-interest history and
// account long/short ratio of BTCUSDT (2026-08-02); Bybit's BTCUSDT 1-hour
// open interest (2026-08-15) and its linear tickers (2026-08-09, see
// BybitTickers); Hyperliquid's metaAndAssetCtxs of the main and xyz dexes
// (2026-02-06, with the recorded Date header). Not captured, so answered
// 404 (the pollers carry on with a partial answer, docs/positioning.md):
// Binance's fundingInfo and current openInterest, Bybit's
// instruments-info and account-ratio, Hyperliquid's outcome markets.
package perpsreplay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/marketintel/mi/internal/pubreplay"
)

// HyperliquidRecorded is when the Hyperliquid cassettes were recorded: the
// Date header of their answers, which the poller takes as the observation
// time (Hyperliquid's answer carries none).
var HyperliquidRecorded = time.Date(2026, 2, 6, 12, 54, 16, 0, time.UTC)

// BybitTickersFile is the Bybit WebSocket capture the REST tickers answer
// is built from.
const BybitTickersFile = "perps/bybit_linear_tickers_ws_BTC_ETH_SOL_DOGE.jsonl"

// Routes returns the captures as pubreplay routes, reading the files from
// fixturesDir (the shared fixtures directory, holding perps/).
func Routes(fixturesDir string) ([]pubreplay.Route, error) {
	fx := func(name string) string { return filepath.Join(fixturesDir, "perps", name) }
	tickers, err := BybitTickers(fixturesDir)
	if err != nil {
		return nil, err
	}
	hlDate := http.Header{"Date": {HyperliquidRecorded.Format(http.TimeFormat)}}
	btc := map[string][]string{"symbol": {"BTCUSDT"}}
	return []pubreplay.Route{
		{Path: "/fapi/v1/premiumIndex", File: fx("binance_usdm_BTCUSDT_premiumIndex_2026-08-02.json")},
		{Path: "/futures/data/openInterestHist", Query: btc, File: fx("binance_usdm_BTCUSDT_openInterestHist_1h_2026-08-02.json")},
		{Path: "/futures/data/globalLongShortAccountRatio", Query: btc, File: fx("binance_usdm_BTCUSDT_globalLongShortAccountRatio_1h_2026-08-02.json")},
		{Path: "/v5/market/tickers", Body: tickers, ContentType: "application/json"},
		{Path: "/v5/market/open-interest", Query: btc, File: fx("bybit_v5_linear_BTCUSDT_open_interest_1h_2026-08-15.json")},
		{Method: http.MethodPost, Path: "/info", BodyContains: `"dex":"xyz"`, File: fx("hyperliquid_info_metaAndAssetCtxs_dex-xyz_2026-02-06.json"), Header: hlDate},
		{Method: http.MethodPost, Path: "/info", BodyContains: `"type":"metaAndAssetCtxs"`, File: fx("hyperliquid_info_metaAndAssetCtxs_2026-02-06.json"), Header: hlDate},
	}, nil
}

// BybitTickers is Bybit's REST answer to /v5/market/tickers?category=linear
// built from the WebSocket capture: the last full snapshot of each ticker
// (real ticker objects, as the REST list carries them) in the REST
// envelope (hand-made: no REST capture exists), whose time is the newest
// snapshot's own time.
func BybitTickers(fixturesDir string) ([]byte, error) {
	objs, ts, err := BybitSnapshots(fixturesDir)
	if err != nil {
		return nil, err
	}
	return TickersEnvelope(objs, ts), nil
}

// TickersEnvelope wraps ticker objects in Bybit's REST envelope with time
// timeMs (Unix ms).
func TickersEnvelope(objs []json.RawMessage, timeMs int64) []byte {
	parts := make([]string, len(objs))
	for i, o := range objs {
		parts[i] = string(o)
	}
	return []byte(`{"retCode":0,"retMsg":"OK","result":{"category":"linear","list":[` + strings.Join(parts, ",") +
		`]},"retExtInfo":{},"time":` + strconv.FormatInt(timeMs, 10) + `}`)
}

// BybitSnapshots returns the last full snapshot of each ticker of the
// WebSocket capture, sorted by topic, and the newest one's time (Unix ms).
func BybitSnapshots(fixturesDir string) ([]json.RawMessage, int64, error) {
	b, err := os.ReadFile(filepath.Join(fixturesDir, BybitTickersFile))
	if err != nil {
		return nil, 0, fmt.Errorf("cannot read the Bybit tickers capture: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	last := map[string]json.RawMessage{}
	var newest int64
	for sc.Scan() {
		var m struct {
			Topic string          `json:"topic"`
			Type  string          `json:"type"`
			TS    int64           `json:"ts"`
			Data  json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, 0, fmt.Errorf("cannot read the Bybit tickers capture: %w", err)
		}
		if m.Type == "snapshot" && bytes.Contains(m.Data, []byte(`"openInterest"`)) {
			last[m.Topic] = append(json.RawMessage(nil), m.Data...)
			newest = max(newest, m.TS)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("cannot read the Bybit tickers capture: %w", err)
	}
	out := make([]json.RawMessage, 0, len(last))
	for _, k := range slices.Sorted(maps.Keys(last)) {
		out = append(out, last[k])
	}
	return out, newest, nil
}

// Entries returns the positioning sources entries reading the captures
// from a replay server at base ("http://127.0.0.1:PORT"): Binance and
// Bybit BTCUSDT, Hyperliquid's main and xyz dexes. No prediction-market
// entry: no capture of Hyperliquid's outcome markets exists.
func Entries(base string) []map[string]any {
	return []map[string]any{
		{"kind": "positioning", "name": "poll:binance-usdm", "venue": "binance", "url": base, "symbols": []string{"BTCUSDT"}},
		{"kind": "positioning", "name": "poll:bybit-linear", "venue": "bybit", "url": base, "symbols": []string{"BTCUSDT"}},
		{"kind": "positioning", "name": "poll:hyperliquid", "venue": "hyperliquid", "url": base, "dexes": []string{"", "xyz"}},
	}
}

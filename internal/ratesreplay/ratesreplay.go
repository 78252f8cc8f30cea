// Package ratesreplay lists the real rates captures of the shared fixtures
// (../shared/fixtures/treasury, rates and defi; see SOURCES.md) as
// internal/pubreplay routes at the publishers' own paths, the sources
// entries that read them with the live rates clients, and the simulated
// Polygon whose Aave v3 Pool holds the recorded reserve, so the end-to-end
// tests and the offline demo poll them exactly as they poll the
// publishers.
//
// What is replayed, and what cannot be: the 2024 par yield curve as
// Treasury published it (CSV), FRED's DFII10 as the real curve's 10-year
// point and its €STR series (no capture of Treasury's real curve or of the
// ECB's own answer exists), the New York Fed's SOFR and EFFR, Fiscal
// Data's auctions, and the one recorded Aave v3 getReserveData answer (the
// WETH reserve on Polygon, 2023-02-12). No capture of a USDC reserve or of
// a tokenized fund's supply exists, so the replay reads the WETH reserve
// under its own name and no fund.
package ratesreplay

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/pipeline/sources/aave"
	"github.com/marketintel/mi/pipeline/sources/aave/aavetest"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
)

// Capture is one fixture file served at one publisher path.
type Capture struct {
	Path  string
	Query url.Values
	File  string // under the fixtures directory
}

// CurvePath is where Treasury serves a year of the par curve as CSV.
const CurvePath = "/resource-center/data-chart-center/interest-rates/daily-treasury-rates.csv/2024/all"

// Captures are the served files.
var Captures = []Capture{
	{Path: CurvePath, File: "treasury/daily_treasury_par_yield_curve_2024_asPublished.csv"},
	{Path: "/graph/fredgraph.csv", Query: url.Values{"id": {"DFII10"}}, File: "rates/fred_DFII10_real_yield_2003-01-02_2024-07-30.csv"},
	{Path: "/fred/series/observations", Query: url.Values{"series_id": {"ECBESTRVOLWGTTRMDMNRT"}}, File: "rates/fred_ECBESTRVOLWGTTRMDMNRT_estr_2024-06-03_2024-06-06.json"},
	{Path: "/fred/series/observations", Query: url.Values{"series_id": {"ECBESTRTOTVOL"}}, File: "rates/fred_ECBESTRTOTVOL_estr_total_volume_2024-06-03_2024-06-06.json"},
	{Path: "/api/rates/secured/sofr/last/60.json", File: "rates/nyfed_sofr_search_2024-06-01_2024-06-06.json"},
	{Path: "/api/rates/unsecured/effr/last/60.json", File: "rates/nyfed_effr_search_2023-01-01_2023-06-06.json"},
	{Path: "/services/api/fiscal_service/v1/accounting/od/auctions_query", File: "treasury/fiscaldata_auctions_query_bills_2026-01.json"},
	{Path: "/services/api/fiscal_service/v1/accounting/od/upcoming_auctions", File: "treasury/fiscaldata_upcoming_auctions_recorded_2026-07-16.json"},
}

// Routes returns the captures as pubreplay routes, reading the files from
// fixturesDir (the shared fixtures directory).
func Routes(fixturesDir string) []pubreplay.Route {
	out := make([]pubreplay.Route, 0, len(Captures))
	for _, c := range Captures {
		out = append(out, pubreplay.Route{Path: c.Path, Query: c.Query, File: filepath.Join(fixturesDir, c.File)})
	}
	return out
}

// ReserveFile is the recorded getReserveData answer, under the fixtures
// directory.
const ReserveFile = "defi/aave_v3_polygon_Pool_getReserveData_WETH_eth_call_response_2023-02-12.json"

// WETH is the asset of the recorded reserve: WETH on Polygon.
var WETH = common.HexToAddress("0x7ceb23fd6bc0add59e62ac25578270cff1b9f619")

// Chain is the chain name the recorded reserve is read on.
const Chain = "polygon"

// Reserve reads the recorded getReserveData answer: its raw return data
// and its decoding.
func Reserve(fixturesDir string) ([]byte, aave.ReserveData, error) {
	b, err := os.ReadFile(filepath.Join(fixturesDir, ReserveFile))
	if err != nil {
		return nil, aave.ReserveData{}, fmt.Errorf("cannot read the recorded Aave reserve: %w", err)
	}
	var resp struct {
		Result hexutil.Bytes `json:"result"`
	}
	if err := json.Unmarshal(b, &resp); err != nil {
		return nil, aave.ReserveData{}, fmt.Errorf("cannot read the recorded Aave reserve %s: %w", ReserveFile, err)
	}
	d, err := aave.DecodeReserveData(resp.Result)
	if err != nil {
		return nil, aave.ReserveData{}, fmt.Errorf("cannot read the recorded Aave reserve %s: %w", ReserveFile, err)
	}
	return resp.Result, d, nil
}

// StartChain starts a simulated chain (chaintest.Start) standing in for
// Polygon: TestAavePool sits at the real Aave v3 Pool's address holding
// the recorded WETH reserve, and the chain never mines, so its only block
// is the genesis, dated the reserve's recorded lastUpdateTimestamp
// (2023-02-12 22:18:50 UTC): every read says how old it is. Close it
// when done.
func StartChain(fixturesDir string) (*chaintest.Chain, error) {
	_, d, err := Reserve(fixturesDir)
	if err != nil {
		return nil, err
	}
	acc, err := aavetest.GenesisAccount(WETH, d)
	if err != nil {
		return nil, err
	}
	pool := aave.Reserves[len(aave.Reserves)-1]
	if pool.Chain != Chain {
		panic("BUG: aave.Reserves no longer ends with polygon")
	}
	return chaintest.Start(chaintest.StartOptions{Alloc: types.GenesisAlloc{pool.Pool: acc}, GenesisTime: time.Unix(int64(d.LastUpdateTimestamp), 0)})
}

// Entries returns the sources entries that read the captures from a replay
// server at base ("http://127.0.0.1:PORT") and the recorded reserve from
// the chain entry named Chain: the par curve, FRED's real 10-year yield and
// €STR, SOFR and EFFR, Fiscal Data's auctions and the WETH reserve.
func Entries(base string) []map[string]any {
	return []map[string]any{
		{"kind": "treasury-curve", "name": "treasury:par", "curve": "par", "format": "csv",
			"urls": []string{base + CurvePath + "?type=daily_treasury_yield_curve&field_tdr_date_value=2024&page&_format=csv"}},
		{"kind": "fred", "name": "fred:real-10y", "base_url": base, "series": []map[string]string{{"id": "DFII10", "as": "par_real:10Y"}}},
		{"kind": "fred", "name": "fred:estr", "series": []map[string]string{
			{"id": "ECBESTRVOLWGTTRMDMNRT", "as": "estr", "url": base + "/fred/series/observations?series_id=ECBESTRVOLWGTTRMDMNRT&file_type=json"},
			{"id": "ECBESTRTOTVOL", "as": "estr_volume", "url": base + "/fred/series/observations?series_id=ECBESTRTOTVOL&file_type=json"}}},
		{"kind": "nyfed", "name": "nyfed", "base_url": base},
		{"kind": "treasury-auctions", "name": "treasury:auctions", "api": "fiscaldata", "base_url": base},
		{"kind": "aave-v3", "name": "aave-v3", "reserves": []map[string]string{{"chain": Chain, "asset": WETH.Hex(), "symbol": "WETH"}}},
	}
}

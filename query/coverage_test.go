package query

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/marketintel/mi/query/mcp"
)

// TestCoverageRoute serves GET /coverage and validates it against
// openapi.json.
func TestCoverageRoute(t *testing.T) {
	f := newOpenAPIFixture(t)
	req, resp, body := f.send(t, http.MethodGet, "/coverage")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if ok, errs := f.v.ValidateHttpResponse(req, resp); !ok {
		t.Fatalf("%.500s:%s", body, describeErrors(errs))
	}
	var got struct {
		Symbols []struct {
			Symbol  string `json:"symbol"`
			Class   string `json:"asset_class"`
			Sources []struct {
				Kind    string  `json:"kind"`
				Venue   *string `json:"venue"`
				Chain   *string `json:"chain"`
				Address *string `json:"address"`
			} `json:"sources"`
		} `json:"symbols"`
		Events []struct {
			Name string `json:"name"`
			Live bool   `json:"live"`
		} `json:"events"`
		Tools []mcp.Tool `json:"tools"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	// This server registers no detector (Deps.Events nil): every event is
	// listed and none is live (TestAlertEventsMustBeLive has live ones).
	for _, e := range got.Events {
		if e.Live {
			t.Fatalf("event %s live on a server without detectors", e.Name)
		}
	}
	if len(got.Events) != 8 {
		t.Fatalf("events %+v: want all 8", got.Events)
	}
	tools := map[string]mcp.Tool{}
	for _, tl := range got.Tools {
		tools[tl.Name] = tl
	}
	for _, name := range mcp.SpecTools {
		if _, ok := tools[name]; !ok {
			t.Fatalf("tool %s of spec §4.8 is not in /coverage: %+v", name, got.Tools)
		}
	}
	for _, name := range []string{"get_treasury_curve", "get_defi_rate_spread", "get_tokenized_treasuries", "get_treasury_auctions"} {
		if !tools[name].Available || tools[name].PriceMicroUSD == 0 {
			t.Fatalf("tool %s: %+v", name, tools[name])
		}
	}
	if !tools["get_symbol_intelligence"].Available ||
		tools["get_symbol_intelligence"].PriceMicroUSD != priceIntelligenceSymbol || !tools["find_opportunities"].Available ||
		tools["find_opportunities"].PriceMicroUSD != 30_000 || !tools["pre_trade_check"].Available ||
		tools["pre_trade_check"].PriceMicroUSD != 5_000 || !tools["get_tokenized_equities"].Available || !tools["get_data_coverage"].Available || tools["get_data_coverage"].PriceMicroUSD != 0 ||
		!tools["get_market_news"].Available || tools["get_market_news"].PriceMicroUSD != 3_000 ||
		!tools["get_fundamental_intelligence"].Available || tools["get_fundamental_intelligence"].PriceMicroUSD != 5_000 ||
		!tools["get_insider_activity"].Available || tools["get_insider_activity"].PriceMicroUSD != 10_000 {
		t.Fatalf("tools %+v", got.Tools)
	}
	var eth, tsla bool
	for _, s := range got.Symbols {
		switch s.Symbol {
		case "ETHUSD":
			eth = len(s.Sources) == 9 && s.Sources[0].Venue != nil && *s.Sources[0].Venue == "binance" && s.Sources[8].Chain != nil
		case "TSLA":
			tsla = s.Class == "us_equity"
		case "TSLAUSD":
			t.Fatal("TSLAUSD listed: US stocks are bare tickers (pipeline/symbols)")
		}
	}
	if !eth || !tsla {
		t.Fatalf("ETHUSD or TSLA wrong: %.800s", body)
	}
}

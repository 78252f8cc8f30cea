package query

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"

	"github.com/marketintel/mi/internal/tokentest"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
	"github.com/marketintel/mi/pipeline/sources/token"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/history/histtest"
	"github.com/marketintel/mi/query/openapi"
)

// TestTokenRoutes serves the token routes over the suite on a simulated
// chain (as "base") and smart money over stored trades, and checks every
// answer against openapi.json strictly: the plain token LOW_RISK, the
// honeypot HIGH_RISK naming its failing check, the 400s naming address or
// chain, smart money's 200 and 404.
func TestTokenRoutes(t *testing.T) {
	ch := chaintest.New(t)
	s := tokentest.Deploy(t, ch)
	cfg := ch.Config("base")
	cfg.Limit = &sources.Limit{}
	set, err := chain.Open([]sources.ChainConfig{cfg}, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	reader := token.New(set, token.Options{Venues: []token.ChainVenues{{Chain: "base", WETH: s.V2.WETH,
		Stables: []token.Stable{{Symbol: "USDC", Address: s.USDC, Decimals: 6}},
		Venues:  []token.Venue{{Name: "uniswap_v2", Kind: token.KindV2, Factory: s.V2.Factory}}}}})

	root := t.TempDir()
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	w := histtest.New(t, root)
	w.Trades(false, []histtest.Trade{
		{Time: now.Add(-3 * time.Hour), Symbol: "TOKUSD", Venue: "uniswap_v3", VenueKind: "onchain_dex", Chain: "base", Market: "0xpool",
			VenueSymbol: "TOK/USDC", Price: 100, Size: 10, NotionalUSD: 1000, Side: "BUY", TradeID: "0x01", LogIndex: 1, Wallet: "0xW1"},
		{Time: now.Add(-time.Hour), Symbol: "TOKUSD", Venue: "uniswap_v3", VenueKind: "onchain_dex", Chain: "base", Market: "0xpool",
			VenueSymbol: "TOK/USDC", Price: 120, Size: 4, NotionalUSD: 480, Side: "SELL", TradeID: "0x02", LogIndex: 1, Wallet: "0xW1"},
	})
	st, err := history.Open(history.Config{DataDir: root, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := New(Deps{Now: func() time.Time { return now }, Token: reader, History: st})

	_, _, doc := get(t, srv, openapi.Path, "")
	document, err := libopenapi.NewDocument(doc)
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(document, config.WithStrictMode(), config.WithFormatAssertions())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	check := func(target string, want int, contains ...string) []byte {
		t.Helper()
		req, resp, body := get(t, srv, target, "")
		if resp.StatusCode != want {
			t.Fatalf("GET %s: %d, want %d: %s", target, resp.StatusCode, want, body)
		}
		if ok, errs := v.ValidateHttpResponse(req, resp); !ok {
			t.Fatalf("GET %s: %s\ndoes not match the document:%s", target, body, describeErrors(errs))
		}
		for _, c := range contains {
			if !strings.Contains(string(body), c) {
				t.Fatalf("GET %s: %s lacks %q", target, body, c)
			}
		}
		return body
	}
	check("/api/v1/intelligence/token/"+s.Plain.Hex(), 200, `"verdict":"ILLIQUID_OR_INACTIVE"`, `"swaps":4`)
	check("/api/v1/intelligence/token/"+strings.ToLower(s.Plain.Hex())+"?chain=base", 200)
	check("/api/v1/intelligence/token-risk/"+s.Plain.Hex(), 200, `"verdict":"LOW_RISK"`, "not an audit")
	body := check("/api/v1/intelligence/token-risk/"+s.Honeypot.Hex(), 200, `"verdict":"HIGH_RISK"`, "Honeypot: sells are disabled")
	var rep struct{ FailedChecks []string }
	if err := json.Unmarshal(body, &rep); err != nil || len(rep.FailedChecks) == 0 || rep.FailedChecks[0] != "sell_simulation" {
		t.Fatalf("failed checks %v %v", rep.FailedChecks, err)
	}
	check("/api/v1/intelligence/token-risk/"+s.Traders[0].Address.Hex(), 400, `"parameter":"address"`, "externally owned")
	check("/api/v1/intelligence/token/"+s.NotToken.Hex(), 400, `"parameter":"address"`, "not an ERC-20")
	check("/api/v1/intelligence/token/0x1234", 400, `"parameter":"address"`)
	check("/api/v1/intelligence/token/"+s.Plain.Hex()+"?chain=solana", 400, `"parameter":"chain"`, "base, arbitrum, optimism")
	check("/api/v1/intelligence/token-risk/"+s.Plain.Hex()+"?chain=arbitrum", 400, `"parameter":"chain"`, "supported chains: base")
	check("/api/v1/intelligence/smart-money/TOKUSD", 200, `"wallet":"0xW1"`, `"realizedPnlUsd":80`)
	check("/api/v1/intelligence/smart-money/NONEUSD", 404, `"error":"no_data"`)
}

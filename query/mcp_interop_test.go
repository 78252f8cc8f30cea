package query

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/paywall/ledger"
	"github.com/marketintel/mi/query/paywall/x402"
)

// interopFreeTool is the free tool the TypeScript client calls.
var interopFreeTool, interopFreeArgs = "get_market_preview", `{"symbol":"BTCUSD"}`

// TestMCPTypeScriptClient drives /mcp with the official MCP TypeScript SDK
// (@modelcontextprotocol/sdk from npm, under node): it lists the tools,
// calls a free tool, calls a paid tool with an API key and sees the 402
// without one. scripts/install.d/mcp.sh installs the SDK (make test runs it).
func TestMCPTypeScriptClient(t *testing.T) {
	dir, err := filepath.Abs("../internal/interop/mcp")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatalf("the MCP TypeScript SDK is not installed in %s: run scripts/install.d/mcp.sh (make test does): %v", dir, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: %v", err)
	}
	// The real paywall on a real (SQLite) ledger: the key is debited the
	// route's price once, and nothing without a key.
	store, err := ledger.Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	var offers []x402.Offer
	for _, n := range []string{x402.NetworkBase, x402.NetworkPolygon, x402.NetworkArbitrum} {
		offers = append(offers, x402.Offer{Network: n, Asset: x402.KnownAssets[n][0], PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"})
	}
	pw, err := paywall.New(paywall.Config{Store: store, Offers: offers, Settler: &x402.Facilitator{URL: "http://127.0.0.1:1"},
		PublicURL: "https://api.example.com", UnpaidPerMinute: -1})
	if err != nil {
		t.Fatal(err)
	}
	key, err := store.CreateKey(t.Context(), 1_000_000, "test", "mcp-interop")
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer(nil, pw, fullDoc())
	url := serveMCP(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", url, key, interopFreeTool, interopFreeArgs,
		"get_symbol_intelligence", `{"symbol":"BTCUSD"}`)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, out)
	}
	var got struct {
		Tools             []string `json:"tools"`
		SchemasAreObjects bool     `json:"schemasAreObjects"`
		Free              struct {
			IsError bool   `json:"isError"`
			Text    string `json:"text"`
		} `json:"free"`
		Unpaid struct {
			Error *string `json:"error"`
			Code  int     `json:"code"`
		} `json:"unpaid"`
		Paid struct {
			IsError bool   `json:"isError"`
			Text    string `json:"text"`
		} `json:"paid"`
		Fatal string `json:"fatal"`
	}
	if err := json.Unmarshal(out, &got); err != nil || got.Fatal != "" {
		t.Fatalf("node client output %s: %v", out, err)
	}
	for _, tl := range s.mcp.Tools() {
		if !slices.Contains(got.Tools, tl.Name) {
			t.Errorf("the TypeScript client does not list %s", tl.Name)
		}
	}
	if len(got.Tools) != len(s.mcp.Tools()) || !got.SchemasAreObjects {
		t.Errorf("tools %v (schemas objects: %v)", got.Tools, got.SchemasAreObjects)
	}
	if got.Free.IsError || got.Free.Text == "" {
		t.Errorf("free tool %s: %+v", interopFreeTool, got.Free)
	}
	if got.Unpaid.Error == nil || got.Unpaid.Code != 402 || !strings.Contains(*got.Unpaid.Error, "x402Version") {
		t.Errorf("unpaid call: %+v, want an HTTP 402 error with the quote", got.Unpaid)
	}
	if got.Paid.IsError || !strings.Contains(got.Paid.Text, `"symbol":"BTCUSD"`) {
		t.Errorf("paid call: %+v", got.Paid)
	}
	if bal, err := store.KeyBalance(t.Context(), key); err != nil || bal != 1_000_000-priceIntelligenceSymbol {
		t.Errorf("key balance %d (%v), want one call of %d taken from 1000000", bal, err, priceIntelligenceSymbol)
	}
}

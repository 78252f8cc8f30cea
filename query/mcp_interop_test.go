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
	pw := &chargingPaywall{charged: map[string]int64{}}
	s := newTestServer(nil, pw, fullDoc())
	url := serveMCP(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", url, "good", interopFreeTool, interopFreeArgs,
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
	for _, tl := range mcpTools {
		if !slices.Contains(got.Tools, tl.name) {
			t.Errorf("the TypeScript client does not list %s", tl.name)
		}
	}
	if len(got.Tools) != len(mcpTools) || !got.SchemasAreObjects {
		t.Errorf("tools %v (schemas objects: %v)", got.Tools, got.SchemasAreObjects)
	}
	if got.Free.IsError || got.Free.Text == "" {
		t.Errorf("free tool %s: %+v", interopFreeTool, got.Free)
	}
	if got.Unpaid.Error == nil || got.Unpaid.Code != 402 || !strings.Contains(*got.Unpaid.Error, "payment_required") {
		t.Errorf("unpaid call: %+v, want an HTTP 402 error with the quote", got.Unpaid)
	}
	if got.Paid.IsError || !strings.Contains(got.Paid.Text, `"symbol":"BTCUSD"`) {
		t.Errorf("paid call: %+v", got.Paid)
	}
	if c := pw.total(); c != priceIntelligenceSymbol {
		t.Errorf("charged %d micro-USD, want one call of %d", c, priceIntelligenceSymbol)
	}
}

package mcp

import (
	"strings"
	"testing"

	"github.com/marketintel/mi/query/market"
)

func TestMCPRequestMapping(t *testing.T) {
	tool := func(name string) mcpTool {
		for _, t := range mcpTools(market.New(market.Config{}).Operations()) {
			if t.name == name {
				return t
			}
		}
		panic(name)
	}
	f := func(name, path string, args map[string]any, wantPath, wantQuery string, wantErr string) {
		t.Helper()
		p, q, _, err := tool(name).request(path, args)
		if wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), wantErr) {
				t.Fatalf("%s %v: err %v, want %q", name, args, err, wantErr)
			}
			return
		}
		if err != nil || p != wantPath || q.Encode() != wantQuery {
			t.Fatalf("%s %v: %s?%s %v; want %s?%s", name, args, p, q.Encode(), err, wantPath, wantQuery)
		}
	}
	f("get_symbol_intelligence", "/api/v1/intelligence/:symbol", map[string]any{"symbol": "ETHUSD", "window": "1m"},
		"/api/v1/intelligence/ETHUSD", "window=1m", "")
	f("get_symbol_intelligence", "/api/v1/intelligence/:symbol", map[string]any{"symbol": "../x"},
		"/api/v1/intelligence/..%2Fx", "", "")
	f("get_symbol_intelligence", "/api/v1/intelligence/:symbol", map[string]any{}, "", "", `"symbol" is required`)
	f("compare_symbols", "/api/v1/intelligence/compare", map[string]any{"symbols": []any{"A", "B"}},
		"/api/v1/intelligence/compare", "symbols=A%2CB", "")
	f("compare_symbols", "/api/v1/intelligence/compare", map[string]any{"symbols": []any{"A", 1.0}}, "", "", "array of strings")
	f("find_unusual_activity", "/api/v1/intelligence/unusual", map[string]any{"minAnomaly": 80.5, "minTrades": 4.0},
		"/api/v1/intelligence/unusual", "minAnomaly=80.5&minTrades=4", "")
	f("get_top_activity", "/api/v1/intelligence/top-activity", map[string]any{"detail": "huge"}, "", "", "compact or full")
}

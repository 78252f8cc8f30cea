package query

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/symbols"
)

// GET /coverage: the data sources of every covered symbol, from the symbol
// registry (docs/symbols.md), the alert events with whether a detector runs
// for them, and the MCP tools with their availability and price. All of it
// is fixed once the server is built, so the body is rendered once.

func init() {
	registerRoutes(func(s *Server) []Route {
		return []Route{{
			Method:  fiber.MethodGet,
			Path:    "/coverage",
			Summary: "Map of data sources per symbol, live alert events and available MCP tools.",
			Handler: s.handleCoverage,
		}}
	})
	apiOperations["GET /coverage"] = apiOperation{
		id: "getCoverage",
		responses: obj{
			{"200", jsonResponse("Every covered symbol with its asset class and data sources, the alert events and the MCP tools.", ref("Coverage"))},
			{"500", refResponse("Internal")},
		},
	}
	nullableString := obj{{"type", []string{"string", "null"}}}
	registerSchema("Coverage", object("Data sources per symbol.", obj{
		{"symbols", described(tArray(object("One covered symbol.", obj{
			{"symbol", described(obj{{"type", "string"}}, "Normalized symbol, e.g. ETHUSD.")},
			{"asset_class", tEnum(string(symbols.Crypto), string(symbols.USEquity), string(symbols.PerpOnly))},
			{"name", obj{{"type", "string"}}},
			{"sources", described(tArray(object("One data source: an exchange market, or a token on a chain whose pools the DEX connectors read.", obj{
				{"kind", tEnum("exchange", "onchain_dex", "solana_dex")},
				{"venue", described(nullableString, "Exchange id; null for a token.")},
				{"venue_symbol", described(nullableString, "The exchange's market symbol; null for a token.")},
				{"market_kind", described(obj{{"type", []string{"string", "null"}}, {"enum", []any{"spot", "perp", nil}}}, "spot or perp; null for a token.")},
				{"chain", described(nullableString, "Chain of a token; null for an exchange market.")},
				{"address", described(nullableString, "Token contract address (EVM, lower case) or mint (Solana); null for an exchange market.")},
				{"ticker", described(nullableString, "The token's own symbol(); null for an exchange market.")},
			})), "Exchange markets by venue, then tokens by chain and address; tokens are identified by chain and address, never by ticker.")},
		})), "Sorted by symbol.")},
		{"events", described(tArray(object("One alert event of spec §6.", obj{
			{"name", tEnum(operators.AlertEventNames...)},
			{"live", described(tBool, "A detector runs for it; the others are accepted in subscriptions but fire once their data source is connected.")},
		})), "Every alert event name, in spec order.")},
		{"tools", described(tArray(object("One MCP tool (docs/mcp.md).", obj{
			{"name", tString},
			{"available", described(tBool, "false: the tool's route is not served yet; calling it answers a not_available tool error.")},
			{"priceMicroUsd", described(obj{{"type", "integer"}, {"minimum", 0}}, "Price of one successful call in USDC atomic units; 0 for free tools.")},
			{"route", described(tString, "The HTTP route the tool calls, e.g. GET /api/v1/intelligence/:symbol.")},
			{"reason", described(tString, "Why the tool is not available; empty when it is.")},
		})), "The tools of POST /mcp.")},
	}))
}

// coverageBody is the rendered body of the server's /coverage.
type coverageBody struct {
	once sync.Once
	b    []byte
}

func (s *Server) handleCoverage(c fiber.Ctx) error {
	s.coverage.once.Do(func() {
		b := appendCoverage(nil, symbols.Coverage())
		b = b[:len(b)-1] // reopen the object
		b = append(b, `,"events":[`...)
		live := operators.LiveAlertEvents()
		for i, e := range operators.AlertEventNames {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendString(b, e)
			b = append(b, `,"live":`...)
			if slices.Contains(live, e) {
				b = append(b, "true}"...)
			} else {
				b = append(b, "false}"...)
			}
		}
		tb, err := json.Marshal(s.MCPTools())
		if err != nil {
			panic("BUG: cannot encode the MCP tools: " + err.Error())
		}
		b = append(b, `],"tools":`...)
		b = append(b, tb...)
		s.coverage.b = append(b, '}')
	})
	return sendJSON(c, fiber.StatusOK, s.coverage.b)
}

func appendCoverage(b []byte, cov []symbols.CoverageEntry) []byte {
	b = append(b, `{"symbols":[`...)
	for i, e := range cov {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"symbol":`...)
		b = appendString(b, e.Symbol)
		b = append(b, `,"asset_class":`...)
		b = appendString(b, string(e.Class))
		b = append(b, `,"name":`...)
		b = appendString(b, e.Name)
		b = append(b, `,"sources":[`...)
		for j, s := range e.Sources {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"kind":`...)
			b = appendString(b, s.Kind)
			for _, f := range [...]struct{ k, v string }{{"venue", s.Venue}, {"venue_symbol", s.VenueSymbol}, {"market_kind", s.MarketKind}, {"chain", s.Chain}, {"address", s.Address}, {"ticker", s.Ticker}} {
				b = append(b, `,"`...)
				b = append(b, f.k...)
				b = append(b, `":`...)
				b = appendStringOrNull(b, f.v)
			}
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	return append(b, "]}"...)
}

package query

import (
	"encoding/json"
	"strconv"
	"sync"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/internal/jsonw"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/symbols"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
)

// GET /coverage: the data sources of every covered symbol, from the symbol
// registry (docs/symbols.md), the alert events with whether a detector runs
// for them, and the MCP tools with their availability and price. All of it
// is fixed once the server is built, so the body is rendered once.

// coverageSchema is the body of GET /coverage.
var coverageSchema = schema.Named{Name: "Coverage", Schema: schema.Object("Data sources per symbol.", schema.Obj{
	{"symbols", schema.Described(schema.Array(schema.Object("One covered symbol.", schema.Obj{
		{"symbol", schema.Described(schema.Obj{{"type", "string"}}, "Normalized symbol, e.g. ETHUSD.")},
		{"asset_class", schema.Enum(string(symbols.Crypto), string(symbols.USEquity), string(symbols.PerpOnly))},
		{"name", schema.Obj{{"type", "string"}}},
		{"sources", schema.Described(schema.Array(schema.Object("One data source: an exchange market, or a token on a chain whose pools the DEX connectors read.", schema.Obj{
			{"kind", schema.Enum("exchange", "onchain_dex", "solana_dex")},
			{"venue", schema.Described(schema.Nullable("string"), "Exchange id; null for a token.")},
			{"venue_symbol", schema.Described(schema.Nullable("string"), "The exchange's market symbol; null for a token.")},
			{"market_kind", schema.Described(schema.Obj{{"type", []string{"string", "null"}}, {"enum", []any{"spot", "perp", nil}}}, "spot or perp; null for a token.")},
			{"chain", schema.Described(schema.Nullable("string"), "Chain of a token; null for an exchange market.")},
			{"address", schema.Described(schema.Nullable("string"), "Token contract address (EVM, lower case) or mint (Solana); null for an exchange market.")},
			{"ticker", schema.Described(schema.Nullable("string"), "The token's own symbol(); null for an exchange market.")},
		})), "Exchange markets by venue, then tokens by chain and address; tokens are identified by chain and address, never by ticker.")},
	})), "Sorted by symbol.")},
	{"events", schema.Described(schema.Array(schema.Object("One alert event of spec §6.", schema.Obj{
		{"name", schema.Enum(operators.AlertEventNames...)},
		{"live", schema.Described(schema.Bool, "A detector of the event runs on this server with its data source configured; only live events may be named in an alert subscription.")},
	})), "Every alert event name, in spec order.")},
	{"tools", schema.Described(schema.Array(schema.Object("One MCP tool (docs/mcp.md).", schema.Obj{
		{"name", schema.String},
		{"available", schema.Described(schema.Bool, "false: the tool's route is not served yet; calling it answers a not_available tool error.")},
		{"priceMicroUsd", schema.Described(schema.Obj{{"type", "integer"}, {"minimum", 0}}, "Price of one successful call in USDC atomic units; 0 for free tools.")},
		{"route", schema.Described(schema.String, "The HTTP route the tool calls, e.g. GET /api/v1/intelligence/:symbol.")},
		{"reason", schema.Described(schema.String, "Why the tool is not available; empty when it is.")},
	})), "The tools of POST /mcp.")},
})}

// coverageOperation declares GET /coverage.
func (s *Server) coverageOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/coverage", ID: "getCoverage", Free: true,
		Summary: "Map of data sources per symbol, live alert events and available MCP tools.",
		Responses: []api.Response{api.JSON(fiber.StatusOK,
			"Every covered symbol with its asset class and data sources, the alert events and the MCP tools.", coverageSchema)},
		Tool: &api.Tool{Name: "get_data_coverage",
			Description: "Free map of what is covered: symbols with their data sources, live alert events, and which tools are available."},
		Handler: s.handleCoverage,
	}
}

// coverageBody is the rendered body of the server's /coverage without its
// events: the symbols (head) and the tools (tail), which do not change
// while the server runs. The events are rendered per request, since a
// stage may register its detector (Deps.Events) after the server is built.
type coverageBody struct {
	once       sync.Once
	head, tail []byte
}

func (s *Server) handleCoverage(c fiber.Ctx) error {
	s.coverage.once.Do(func() {
		b := appendCoverage(nil, symbols.Coverage())
		s.coverage.head = append(b[:len(b)-1], `,"events":[`...) // reopen the object
		tb, err := json.Marshal(s.mcp.Tools())
		if err != nil {
			panic("BUG: cannot encode the MCP tools: " + err.Error())
		}
		s.coverage.tail = append(append([]byte(`],"tools":`), tb...), '}')
	})
	return api.SendRendered(c, fiber.StatusOK, func(b []byte) []byte {
		b = append(b, s.coverage.head...)
		for i, e := range operators.AlertEventNames {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = jsonw.AppendString(b, e)
			b = strconv.AppendBool(append(b, `,"live":`...), s.d.Events.Live(e))
			b = append(b, '}')
		}
		return append(b, s.coverage.tail...)
	})
}

func appendCoverage(b []byte, cov []symbols.CoverageEntry) []byte {
	b = append(b, `{"symbols":[`...)
	for i, e := range cov {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"symbol":`...)
		b = jsonw.AppendString(b, e.Symbol)
		b = append(b, `,"asset_class":`...)
		b = jsonw.AppendString(b, string(e.Class))
		b = append(b, `,"name":`...)
		b = jsonw.AppendString(b, e.Name)
		b = append(b, `,"sources":[`...)
		for j, s := range e.Sources {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"kind":`...)
			b = jsonw.AppendString(b, s.Kind)
			for _, f := range [...]struct{ k, v string }{{"venue", s.Venue}, {"venue_symbol", s.VenueSymbol}, {"market_kind", s.MarketKind}, {"chain", s.Chain}, {"address", s.Address}, {"ticker", s.Ticker}} {
				b = append(b, `,"`...)
				b = append(b, f.k...)
				b = append(b, `":`...)
				b = jsonw.AppendStringOrNull(b, f.v)
			}
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	return append(b, "]}"...)
}

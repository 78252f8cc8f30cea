package query

import (
	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/pipeline/symbols"
)

// GET /coverage: the data sources of every covered symbol, from the symbol
// registry (docs/symbols.md). The registry is static, so the body is
// rendered once.

func init() {
	registerRoutes(func(s *Server) []Route {
		return []Route{{
			Method:  fiber.MethodGet,
			Path:    "/coverage",
			Summary: "Map of data sources per symbol.",
			Handler: handleCoverage,
		}}
	})
	apiOperations["GET /coverage"] = apiOperation{
		id: "getCoverage",
		responses: obj{
			{"200", jsonResponse("Every covered symbol with its asset class and data sources.", ref("Coverage"))},
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
	}))
}

var coverageBody = appendCoverage(nil, symbols.Coverage())

func handleCoverage(c fiber.Ctx) error { return sendJSON(c, fiber.StatusOK, coverageBody) }

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

// Package positioning serves GET /api/v1/intelligence/positioning/{symbol}
// (spec §4.5): open interest, long/short share and funding per perpetuals
// venue, totals, the 1 h and 24 h change of total open interest from the
// stored snapshots, the crowding flag of spec §2.11 and the latest spot
// flow, from the positioning view (sinks/views.Positioning, followed from
// mi.positioning.v1; docs/positioning.md). The handler validates, asks the
// view and renders.
package positioning

import (
	"errors"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/sinks/views"
)

// pricePositioning is spec §8's price, micro-USD (0.01 USD).
const pricePositioning = 10_000

// Tool is the route's MCP tool (docs/mcp.md); not one of the spec's names.
const Tool = "get_perp_positioning"

// Routes serve the positioning route.
type Routes struct {
	view *views.Positioning
	spot views.SpotSource
	now  func() time.Time
}

// New returns the route over view (nil: every symbol answers 404 no_data)
// and spot, the intelligence view whose 5m document is the spot flow (may
// be nil); now is the server clock (the time of the question, which only
// ages the figures).
func New(view *views.Positioning, spot views.SpotSource, now func() time.Time) *Routes {
	if now == nil {
		now = time.Now
	}
	return &Routes{view: view, spot: spot, now: now}
}

// Operations are the positioning route.
func (rt *Routes) Operations() []api.Operation {
	return []api.Operation{{
		Method: fiber.MethodGet, Path: "/api/v1/intelligence/positioning/:symbol", ID: "getPositioning", Price: pricePositioning,
		Summary: "Perpetual-futures positioning of a symbol: open interest (contracts and USD), long/short share where the venue publishes one, funding and its annualized value per venue with the time each was read; totals, 1 h and 24 h change of total open interest, CROWDED_LONG / CROWDED_SHORT / THIN / NONE flag, and the latest spot flow. Perp-only symbols get a partial answer with a coverage note.",
		Params:  []api.Param{api.SymbolPath},
		Responses: []api.Response{
			api.JSON(fiber.StatusOK, "The symbol's positioning; stale rows are flagged with their age, never presented as current.", answerSchema),
			api.JSON(fiber.StatusNotFound, "No perp snapshot and no spot flow of the symbol; not charged.", noDataSchema),
		},
		Tool: &api.Tool{Name: Tool,
			Description: "Perpetual futures open interest, funding (annualized) and long/short crowding per venue (Binance, Bybit, Hyperliquid) for a symbol such as BTCUSD, with 1h/24h open-interest change, a CROWDED_LONG/CROWDED_SHORT/THIN flag and the latest spot flow. Use to judge leverage and crowding before a trade."},
		Handler: rt.handle,
	}}
}

func (rt *Routes) handle(c fiber.Ctx) error {
	sym := api.SymbolPath.Get(c)
	if rt.view == nil {
		return noData(c, "no positioning is configured on this server")
	}
	a, err := rt.view.Answer(sym, rt.now(), rt.spot)
	if errors.Is(err, views.ErrNoPositioning) {
		return noData(c, "no perp or spot data for "+sym)
	}
	if err != nil {
		return err
	}
	return api.SendValue(c, fiber.StatusOK, a)
}

func noData(c fiber.Ctx, msg string) error {
	return api.SendError(c, fiber.StatusNotFound, api.CodeNoData, msg)
}

// The answer, field by field as sinks/views writes it
// (docs/positioning.md#the-answer).
var (
	nullNumber = schema.Nullable("number")

	longShortSchema = schema.Object("The long/short share the venue publishes, and which measure it is.", schema.Obj{
		{"kind", schema.Described(schema.Enum("global_account", "account"), "global_account: Binance's share of all accounts net long (short); account: Bybit's share of position holders long (short). Both count accounts, not contracts.")},
		{"longShare", schema.Number}, {"shortShare", schema.Number}, {"ratio", schema.Number},
		{"period", schema.String}, {"observedAt", schema.DateTime},
	})
	fundingSchema = schema.Object("The current funding rate per interval and its yearly equivalent.", schema.Obj{
		{"rate", schema.Described(schema.Number, "Per funding interval, a fraction (0.0001 = 0.01 %).")},
		{"intervalHours", schema.Number},
		{"intervalSource", schema.Described(schema.Enum("venue", "default"), "venue: the interval the venue publishes for the perp; default: the venue's documented default.")},
		{"annualizedPercent", schema.Described(schema.Number, "rate x 8760 / intervalHours x 100 (simple, not compounded).")},
		{"nextFundingAt", schema.NullableDateTime},
	})
	venueSchema = schema.Named{Name: "PositioningVenue", Schema: schema.ObjectRequiring("One perp of one venue.", schema.Obj{
		{"venue", schema.Enum("binance", "bybit", "hyperliquid")},
		{"venueSymbol", schema.String},
		{"dex", schema.Described(schema.String, "Hyperliquid builder dex of the perp (absent on the main dex).")},
		{"openInterest", schema.Described(schema.Number, "Contracts (base units: coins, shares).")},
		{"openInterestUsd", schema.Described(schema.Number, "USD, as the venue values it (Binance, Bybit) or at the mark price (Hyperliquid).")},
		{"markPrice", schema.Number},
		{"longShort", schema.Described(schema.Obj{{"oneOf", []any{schema.Obj{{"type", "null"}}, longShortSchema}}}, "Null where the venue publishes no share (Hyperliquid).")},
		{"funding", fundingSchema},
		{"change1hPercent", schema.Described(nullNumber, "This venue's own open-interest change over 1 h; null without a point then.")},
		{"change24hPercent", nullNumber},
		{"volume24hUsd", nullNumber},
		{"observedAt", schema.Described(schema.DateTime, "The venue's time of the figures.")},
		{"readAt", schema.Described(schema.DateTime, "When the service read them.")},
		{"ageSeconds", schema.Integer},
		{"stale", schema.Described(schema.Bool, "Observed more than 15 minutes before the question.")},
		{"inTotals", schema.Bool},
		{"source", schema.Described(schema.String, "The configured source that read it, e.g. poll:binance-usdm.")},
	}, "venue", "venueSymbol", "openInterest", "openInterestUsd", "markPrice", "longShort", "funding", "change1hPercent", "change24hPercent",
		"volume24hUsd", "observedAt", "readAt", "ageSeconds", "stale", "inTotals", "source")}
	oiChangeSchema = schema.Object("Change of the summed open interest of the venues with a point both now and then.", schema.Obj{
		{"percent", schema.Number}, {"fromUsd", schema.Number}, {"toUsd", schema.Number},
		{"venues", schema.Array(schema.String)},
		{"incomplete", schema.Described(schema.Bool, "Some summed venue had no point then.")},
	})
	nullOIChange = schema.Obj{{"oneOf", []any{schema.Obj{{"type", "null"}}, oiChangeSchema}}}
	totalsSchema = schema.Object("Sums over the rows observed within 1 h of the newest row.", schema.Obj{
		{"openInterestUsd", schema.Number},
		{"venues", schema.Count},
		{"longShare", schema.Described(nullNumber, "Open-interest-weighted over the venues that publish a share; null when none does.")},
		{"shortShare", nullNumber},
		{"longShareVenues", schema.Array(schema.String)},
		{"fundingAnnualizedPercent", schema.Described(schema.Number, "Open-interest-weighted.")},
		{"oldestObservedAt", schema.DateTime},
		{"newestObservedAt", schema.DateTime},
		{"excluded", schema.Array(schema.Object("A row left out of the totals, and why.", schema.Obj{
			{"venue", schema.String}, {"venueSymbol", schema.String}, {"reason", schema.String},
		}))},
	})
	answerSchema = schema.Named{Name: "Positioning", Schema: schema.ObjectRequiring("Body of GET /api/v1/intelligence/positioning/{symbol} (docs/positioning.md).", schema.Obj{
		{"symbol", schema.String},
		{"assetClass", schema.Described(schema.String, "The symbol registry's class; empty for symbols it does not cover.")},
		{"perpOnly", schema.Described(schema.Bool, "No spot market exists (e.g. KPEPEUSD).")},
		{"venues", schema.Array(venueSchema)},
		{"delistedVenues", schema.Array(schema.Object("A perp its venue no longer lists.", schema.Obj{
			{"venue", schema.String}, {"venueSymbol", schema.String}, {"since", schema.DateTime},
		}))},
		{"totals", schema.Described(schema.Obj{{"oneOf", []any{schema.Obj{{"type", "null"}}, totalsSchema}}}, "Null when every perp is delisted or there is none.")},
		{"change", schema.Object("Change of total open interest from the stored snapshots; null without a point then.", schema.Obj{
			{"openInterest1h", nullOIChange}, {"openInterest24h", nullOIChange},
		})},
		{"flag", schema.Enum("CROWDED_LONG", "CROWDED_SHORT", "THIN", "NONE")},
		{"flagRule", schema.String},
		{"spotFlow", schema.Described(schema.Obj{{"oneOf", []any{schema.Obj{{"type", "null"}}, schema.Object("The symbol's latest 5m intelligence document.", schema.Obj{
			{"window", schema.String}, {"price", schema.Number}, {"volumeUsd", schema.Number}, {"buyPressure", schema.Number},
			{"priceChangePercent", schema.Number}, {"signal", schema.String}, {"timestamp", schema.DateTime}, {"ageSeconds", schema.Integer},
		})}}}, "Null when the symbol has no spot trades in the covered venues.")},
		{"coverage", schema.ObjectRequiring("What the answer covers.", schema.Obj{
			{"partial", schema.Bool}, {"note", schema.String},
		}, "partial")},
		{"stale", schema.Described(schema.Bool, "Some summed row is stale.")},
		{"asOf", schema.Described(schema.NullableDateTime, "The oldest observation summed.")},
		{"generatedAt", schema.DateTime},
		{"notes", schema.Array(schema.String)},
	}, "symbol", "assetClass", "perpOnly", "venues", "delistedVenues", "totals", "change", "flag", "flagRule", "spotFlow", "coverage", "stale", "asOf", "generatedAt")}
	noDataSchema = schema.Named{Name: "PositioningNoDataError", Schema: schema.Object("404 of the positioning route; not charged.", schema.Obj{
		{"error", schema.Const(api.CodeNoData)}, {"message", schema.String}, {"charged", schema.Const(false)},
	})}
)

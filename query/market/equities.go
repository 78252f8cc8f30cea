package market

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/operators/uscal"
	"github.com/marketintel/mi/pipeline/symbols"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/schemas"
)

// priceEquities is the price of GET /api/v1/intelligence/equities, 0.005
// USD (spec §8).
const priceEquities = 5_000

// EquityPriceNotice is said by every tokenized-equity answer (spec §1).
const EquityPriceNotice = "Prices of tokenized equities are on-chain trade prices of the tokens, not official exchange quotes."

// The data sources a decision route names in its dataQuality block.
const (
	sourceSpotFlow  = "spot_dex_flow"
	sourceCandles   = "candles"
	sourceLiquidity = "onchain_liquidity"
	sourceNews      = "news"
	sourceRegime    = "market_regime"
)

// Statuses of a source in a dataQuality block.
const (
	statusOK      = "ok"
	statusMissing = "missing"
	statusStale   = "stale"
)

var (
	sessionProps = schema.Obj{
		{"label", schema.Enum("WEEKEND", "OVERNIGHT", "PRE_MARKET", "REGULAR", "AFTER_HOURS")},
		{"newYorkTime", schema.Described(schema.DateTime, "The moment the label is for, in New York time.")},
		{"closure", schema.Described(schema.Nullable("string"), "Why the exchange is closed all day (Saturday, a holiday's name); null on trading days.")},
		{"earlyClose", schema.Described(schema.Nullable("string"), "Why the regular session ends at 13:00; null otherwise.")},
	}
	sessionSchema = schema.Named{Name: "USMarketSession", Schema: schema.Object("The US equity market session (docs/decisions.md).", sessionProps)}
	// nullableSessionSchema is the session of an answer about any symbol:
	// null for a symbol that is not a US equity.
	nullableSessionSchema = schema.Obj{{"description", "The US market session at the server's clock for a us_equity symbol; null for other symbols."},
		{"type", []string{"object", "null"}}, {"properties", sessionProps},
		{"required", []string{"label", "newYorkTime", "closure", "earlyClose"}}, {"additionalProperties", false}}
	sourceStatusSchema = schema.Object("One data source the answer reads.", schema.Obj{
		{"source", schema.String},
		{"status", schema.Enum(statusOK, statusMissing, statusStale)},
		{"detail", schema.String},
	})
	equitiesQualitySchema = schema.Object("What the answer could and could not read.", schema.Obj{
		{"registeredSymbols", schema.Described(schema.Count, "Tokenized US equities in the symbol registry (class us_equity).")},
		{"coveredSymbols", schema.Described(schema.Count, "Of those, the ones with a fresh document in the window.")},
		{"staleSymbols", schema.Described(schema.Array(schema.String), "Registered equities whose latest document is stale.")},
		{"withoutData", schema.Described(schema.Array(schema.String), "Registered equities with no document in the window.")},
		{"sources", schema.Array(sourceStatusSchema)},
	})
	equitiesSchema = schema.Named{Name: "TokenizedEquities", Schema: schema.Object("Tokenized US equity flow with the current US market session (spec §4.4).", schema.Obj{
		{"window", schema.Enum(schemas.Windows...)},
		{"session", sessionSchema},
		{"symbolsCovered", schema.Count},
		{"bullishSymbols", schema.Count},
		{"bearishSymbols", schema.Count},
		{"neutralSymbols", schema.Count},
		{"bullishBreadthPercent", schema.Percent()},
		{"bearishBreadthPercent", schema.Percent()},
		{"averageBuyPressure", schema.Percent()},
		{"averagePriceChangePercent", schema.Number},
		{"assets", schema.Described(schema.Array(compactDocumentSchema), "Per-asset compact intelligence, most active first, at most limit.")},
		{"priceNotice", schema.Const(EquityPriceNotice)},
		{"dataQuality", equitiesQualitySchema},
		{"timestamp", schema.DateTime},
	})}
	decisionNoDataSchema = schema.Named{Name: "DecisionNoDataError", Schema: schema.Object("404 of the decision routes: no fresh data at all (spec §7); not charged.", schema.Obj{
		{"error", schema.Const(api.CodeNoData)}, {"message", schema.String}, {"charged", schema.Const(false)},
	})}
)

func (rt *Routes) equitiesOperation() api.Operation {
	limit := limitParam(defaultListLimit)
	return api.Operation{
		Method: fiber.MethodGet, Path: "/api/v1/intelligence/equities", ID: "getTokenizedEquities", Price: priceEquities,
		Summary: "Tokenized US equity flow: the current US market session, breadth, average buy pressure and per-asset signals. Prices are on-chain trade prices, not official exchange quotes.",
		Params:  []api.Param{windowParam, limit},
		Responses: []api.Response{
			api.JSON(fiber.StatusOK, "The equities covered in the window, most active first.", equitiesSchema),
			api.JSON(fiber.StatusNotFound, "No tokenized equity has fresh data in the window; not charged.", decisionNoDataSchema),
		},
		Tool: &api.Tool{Name: "get_tokenized_equities",
			Description: "24/7 on-chain flow of tokenized US stocks and ETFs (xStocks and others) with the current US market session (WEEKEND, OVERNIGHT, PRE_MARKET, REGULAR, AFTER_HOURS), breadth, average buy pressure and per-asset signals. Prices are on-chain trade prices, not official quotes."},
		Handler: func(c fiber.Ctx) error {
			a, ok := rt.Equities(windowParam.Get(c), int(limit.Get(c)))
			if !ok {
				return api.SendError(c, fiber.StatusNotFound, api.CodeNoData,
					"no tokenized equity has fresh trades in the "+windowParam.Get(c)+" window")
			}
			return api.SendValue(c, fiber.StatusOK, a)
		},
	}
}

// SessionBlock is the US market session of an answer.
type SessionBlock struct {
	Label       uscal.SessionLabel `json:"label"`
	NewYorkTime string             `json:"newYorkTime"`
	Closure     *string            `json:"closure"`
	EarlyClose  *string            `json:"earlyClose"`
}

// sessionBlock returns the session at t.
func sessionBlock(t time.Time) SessionBlock {
	s := uscal.SessionAt(t)
	b := SessionBlock{Label: s.Label, NewYorkTime: t.In(uscal.NewYork).Format(time.RFC3339)}
	if s.Closure != "" {
		b.Closure = &s.Closure
	}
	if s.EarlyClose != "" {
		b.EarlyClose = &s.EarlyClose
	}
	return b
}

// SourceStatus is one source of a dataQuality block.
type SourceStatus struct {
	Source string `json:"source"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// EquitiesQuality is the dataQuality block of the equities answer.
type EquitiesQuality struct {
	RegisteredSymbols int            `json:"registeredSymbols"`
	CoveredSymbols    int            `json:"coveredSymbols"`
	StaleSymbols      []string       `json:"staleSymbols"`
	WithoutData       []string       `json:"withoutData"`
	Sources           []SourceStatus `json:"sources"`
}

// EquitiesAnswer is the body of GET /api/v1/intelligence/equities.
type EquitiesAnswer struct {
	Window                    string          `json:"window"`
	Session                   SessionBlock    `json:"session"`
	SymbolsCovered            int             `json:"symbolsCovered"`
	BullishSymbols            int             `json:"bullishSymbols"`
	BearishSymbols            int             `json:"bearishSymbols"`
	NeutralSymbols            int             `json:"neutralSymbols"`
	BullishBreadthPercent     float64         `json:"bullishBreadthPercent"`
	BearishBreadthPercent     float64         `json:"bearishBreadthPercent"`
	AverageBuyPressure        float64         `json:"averageBuyPressure"`
	AveragePriceChangePercent float64         `json:"averagePriceChangePercent"`
	Assets                    json.RawMessage `json:"assets"`
	PriceNotice               string          `json:"priceNotice"`
	DataQuality               EquitiesQuality `json:"dataQuality"`
	Timestamp                 string          `json:"timestamp"`
}

// equitySymbols are the registry's us_equity symbols, sorted.
var equitySymbols = func() []string {
	var out []string
	for _, a := range symbols.Assets() {
		if a.Class == symbols.USEquity {
			out = append(out, a.Symbol)
		}
	}
	slices.Sort(out)
	return out
}()

// isEquity reports whether symbol is a tokenized US equity of the registry.
func isEquity(symbol string) bool {
	_, ok := slices.BinarySearch(equitySymbols, symbol)
	return ok
}

// Equities builds the equities answer of window with at most limit assets:
// the market step's covered (fresh) documents of us_equity symbols, most
// active first, their breadth and averages, and the US market session at
// the server's clock. ok is false when no equity is covered.
func (rt *Routes) Equities(window string, limit int) (EquitiesAnswer, bool) {
	now := rt.now()
	m := rt.market(window)
	var docs []*schemas.IntelligenceDocument
	for _, d := range m.docs {
		if isEquity(d.Symbol) {
			docs = append(docs, d)
		}
	}
	q := EquitiesQuality{RegisteredSymbols: len(equitySymbols), CoveredSymbols: len(docs), StaleSymbols: []string{}, WithoutData: []string{}}
	for _, s := range equitySymbols {
		if _, fresh := m.get(s); fresh {
			continue
		}
		if _, any := rt.views.Get(s, window); any {
			q.StaleSymbols = append(q.StaleSymbols, s)
		} else {
			q.WithoutData = append(q.WithoutData, s)
		}
	}
	if len(docs) == 0 {
		return EquitiesAnswer{}, false
	}
	flow := SourceStatus{Source: sourceSpotFlow, Status: statusOK,
		Detail: "documents of the on-chain trades of the tokens in the window"}
	if len(q.StaleSymbols) > 0 {
		flow.Status, flow.Detail = statusStale, "some registered equities have only stale documents (staleSymbols)"
	}
	q.Sources = []SourceStatus{flow}

	a := EquitiesAnswer{Window: window, Session: sessionBlock(now), SymbolsCovered: len(docs),
		PriceNotice: EquityPriceNotice, DataQuality: q, Timestamp: now.UTC().Format(time.RFC3339Nano)}
	var sumBP, sumPC float64
	for _, d := range docs {
		switch d.Signal {
		case signalBullish:
			a.BullishSymbols++
		case signalBearish:
			a.BearishSymbols++
		}
		sumBP += finite(d.BuyPressure)
		sumPC += finite(d.PriceChangePercent)
	}
	n := float64(len(docs))
	a.NeutralSymbols = len(docs) - a.BullishSymbols - a.BearishSymbols
	a.BullishBreadthPercent = 100 * float64(a.BullishSymbols) / n
	a.BearishBreadthPercent = 100 * float64(a.BearishSymbols) / n
	a.AverageBuyPressure, a.AveragePriceChangePercent = sumBP/n+0, sumPC/n+0

	slices.SortFunc(docs, mostActiveFirst)
	if len(docs) > limit {
		docs = docs[:limit]
	}
	b := []byte{'['}
	for i, d := range docs {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendCompactDocument(b, d)
	}
	a.Assets = append(b, ']')
	return a, true
}

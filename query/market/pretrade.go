package market

import (
	"slices"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/operators/decision"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/views"
)

// pricePreTrade is the price of GET /api/v1/intelligence/pre-trade, 0.005
// USD (spec §8).
const pricePreTrade = 5_000

// PreTradeWindows are the windows the pre-trade check accepts (spec §4.4).
var PreTradeWindows = []string{"1m", "5m", "15m", "1h", "4h", "24h"}

// CandleSource gives the closes of the last n bars of barMinutes minutes
// of a symbol, oldest first, for the volatility check; ok is false when it
// does not hold them.
type CandleSource interface {
	Closes(symbol string, barMinutes, n int) (closes []float64, ok bool)
}

// NewsSource counts the news items and filings of a symbol in the 24 hours
// before now; ok is false when it has no news source.
type NewsSource interface {
	News24h(symbol string, now time.Time) (decision.News, bool)
}

// preTradeBars maps a pre-trade window to the candles its volatility is
// measured on: bar width in minutes and number of bars. The windows of
// the documents (1m, 5m, 15m) use the last 15 one-minute bars, so that
// the measure has enough returns.
var preTradeBars = map[string][2]int{
	"1m": {1, 15}, "5m": {1, 15}, "15m": {1, 15}, "1h": {1, 60}, "4h": {5, 48}, "24h": {15, 96},
}

// flowWindow returns the document window the flow checks of a pre-trade
// window read: the window itself when documents have it, else 15m.
func flowWindow(w string) string {
	if slices.Contains(schemas.Windows, w) {
		return w
	}
	return "15m"
}

var (
	preTradeSymbolParam = api.Symbol{Required: true, Desc: "Symbol to trade, case-insensitive, e.g. ETHUSD or TSLA."}
	sideParam           = api.Enum{Name: "side", Desc: "Side of the order.", Values: decision.Sides, Default: string(decision.Buy)}
	preTradeWindowParam = api.Enum{Name: "window", Values: PreTradeWindows, Default: "5m",
		Desc: "Horizon of the check: the flow checks read the document of the window (15m for 1h, 4h and 24h), the volatility check the candles of the window."}

	checkSchema = schema.Object("One check of the pre-trade assessment (docs/decisions.md).", schema.Obj{
		{"name", schema.Enum(decision.CheckOrderFlow, decision.CheckMomentum, decision.CheckVolatility, decision.CheckEvents,
			decision.CheckRegime, decision.CheckNews, decision.CheckSlippage)},
		{"result", schema.Enum(string(decision.Pass), string(decision.Warn), string(decision.Fail), string(decision.Unknown))},
		{"weight", schema.Count},
		{"observedValue", schema.Nullable("number")},
		{"unit", schema.String},
		{"detail", schema.String},
	})
	costsSchema = schema.Object("Cost in basis points of a market order per USD size; null when the order would move the price more than 1%.", schema.Obj{
		{"1000", schema.Nullable("number")}, {"10000", schema.Nullable("number")}, {"50000", schema.Nullable("number")},
	})
	preTradeSchema = schema.Named{Name: "PreTradeCheck", Schema: schema.Object("Pre-trade check of one symbol and side (spec §2.11, §4.4).", schema.Obj{
		{"symbol", schema.String},
		{"side", schema.Enum(decision.Sides...)},
		{"window", schema.Enum(PreTradeWindows...)},
		{"flowWindow", schema.Described(schema.Enum(schemas.Windows...), "Window of the document the flow checks read.")},
		{"verdict", schema.Enum(string(decision.Favorable), string(decision.Caution), string(decision.Unfavorable))},
		{"score", schema.Described(schema.Percent(), "Weighted mean of the known checks' points: PASS 100, WARN 50, FAIL 0.")},
		{"reasons", schema.Array(schema.String)},
		{"checks", schema.Array(checkSchema)},
		{"slippage", schema.Object("On-chain cost of market orders, fee included (liquidity block of spec §2.3).", schema.Obj{
			{"method", schema.String},
			{"asOf", schema.NullableDateTime},
			{"liquidityScore", schema.Described(schema.Nullable("integer"), "100·exp(−bps/50), bps the mean of the $10k buy and sell costs.")},
			{"side", schema.Described(costsSchema, "Costs on the requested side.")},
		})},
		{"session", nullableSessionSchema},
		{"dataQuality", schema.Object("Which sources the check could read.", schema.Obj{
			{"knownWeight", schema.Described(schema.Count, "Weight (of 100) of the checks whose source was read.")},
			{"unknownChecks", schema.Array(schema.String)},
			{"sources", schema.Array(sourceStatusSchema)},
		})},
		{"priceNotice", schema.Nullable("string")},
		{"timestamp", schema.DateTime},
	})}
)

func (rt *Routes) preTradeOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/api/v1/intelligence/pre-trade", ID: "getPreTradeCheck", Price: pricePreTrade,
		Summary: "Pre-trade check of a symbol and side: verdict FAVORABLE, CAUTION or UNFAVORABLE, a 0-100 score and the checks behind it (order flow, momentum, volatility, adverse events, market regime, news of 24 hours, on-chain slippage for $1k, $10k and $50k, liquidity score).",
		Params:  []api.Param{preTradeSymbolParam, sideParam, preTradeWindowParam},
		Responses: []api.Response{
			api.JSON(fiber.StatusOK, "The assessment; a missing source makes its check UNKNOWN and is named in dataQuality.", preTradeSchema),
			api.JSON(fiber.StatusNotFound, "Nothing is known of the symbol (no document in any window, no pool); not charged.", decisionNoDataSchema),
		},
		Tool: &api.Tool{Name: "pre_trade_check",
			Description: "Before placing an order: verdict FAVORABLE, CAUTION or UNFAVORABLE with a 0-100 score and the checks behind it (order flow on your side, momentum, volatility, adverse events, market regime, news of the last 24 hours, on-chain slippage for $1k/$10k/$50k and the liquidity score). Missing sources are UNKNOWN, not failures."},
		Handler: func(c fiber.Ctx) error {
			a, ok := rt.PreTrade(preTradeSymbolParam.Get(c), decision.Side(sideParam.Get(c)), preTradeWindowParam.Get(c))
			if !ok {
				return api.SendError(c, fiber.StatusNotFound, api.CodeNoData, "nothing is known of "+preTradeSymbolParam.Get(c)+": no trade-flow document and no on-chain pool")
			}
			return api.SendValue(c, fiber.StatusOK, a)
		},
	}
}

// PreTradeSlippage is the slippage block of a pre-trade answer.
type PreTradeSlippage struct {
	Method         string              `json:"method"`
	AsOf           *string             `json:"asOf"`
	LiquidityScore *int                `json:"liquidityScore"`
	Side           map[string]*float64 `json:"side"`
}

// PreTradeQuality is the dataQuality block of a pre-trade answer.
type PreTradeQuality struct {
	KnownWeight   int            `json:"knownWeight"`
	UnknownChecks []string       `json:"unknownChecks"`
	Sources       []SourceStatus `json:"sources"`
}

// PreTradeAnswer is the body of GET /api/v1/intelligence/pre-trade.
type PreTradeAnswer struct {
	Symbol      string           `json:"symbol"`
	Side        decision.Side    `json:"side"`
	Window      string           `json:"window"`
	FlowWindow  string           `json:"flowWindow"`
	Verdict     decision.Verdict `json:"verdict"`
	Score       int              `json:"score"`
	Reasons     []string         `json:"reasons"`
	Checks      []decision.Check `json:"checks"`
	Slippage    PreTradeSlippage `json:"slippage"`
	Session     *SessionBlock    `json:"session"`
	DataQuality PreTradeQuality  `json:"dataQuality"`
	PriceNotice *string          `json:"priceNotice"`
	Timestamp   string           `json:"timestamp"`
}

// PreTrade assesses an order on side of symbol over window from what the
// routes' sources hold. ok is false when nothing is known of the symbol:
// no document in any window and no on-chain pool.
func (rt *Routes) PreTrade(symbol string, side decision.Side, window string) (PreTradeAnswer, bool) {
	now := rt.now()
	fw := flowWindow(window)
	m := rt.market(fw)
	in := decision.Inputs{Side: side}
	var sources []SourceStatus

	// Trade flow: the fresh document of the flow window.
	flow := SourceStatus{Source: sourceSpotFlow, Status: statusOK, Detail: "document of the " + fw + " window"}
	known := false
	if d, fresh := m.get(symbol); fresh {
		known = true
		in.Flow = &decision.Flow{BuyPressure: finite(d.BuyPressure), MomentumScore: finite(d.MomentumScore),
			TradeCount: d.TradeCount, EventType: d.EventType}
	} else {
		flow.Status, flow.Detail = statusMissing, "no document of the symbol in the "+fw+" window"
		if _, stale := rt.views.Get(symbol, fw); stale {
			flow.Status, flow.Detail = statusStale, "the symbol's "+fw+" document is stale"
		}
		for _, w := range schemas.Windows {
			if _, any := rt.views.Get(symbol, w); any {
				known = true
			}
		}
	}
	sources = append(sources, flow)

	// Volatility: candles of the window.
	bars := preTradeBars[window]
	candles := SourceStatus{Source: sourceCandles, Status: statusOK,
		Detail: strconv.Itoa(bars[1]) + " bars of " + strconv.Itoa(bars[0]) + "m"}
	if closes, ok := rt.candles.Closes(symbol, bars[0], bars[1]); ok {
		in.Volatility = &decision.Volatility{Closes: closes, BarMinutes: bars[0]}
	} else {
		candles.Status, candles.Detail = statusMissing, "no candles of the symbol for the "+window+" window on this server"
	}
	sources = append(sources, candles)

	// Market regime of the flow window.
	reg := SourceStatus{Source: sourceRegime, Status: statusOK, Detail: "regime of the " + fw + " window"}
	if m.regime != regimeNoData {
		in.Regime = m.regime
	} else {
		reg.Status, reg.Detail = statusMissing, "no covered symbols in the "+fw+" window"
	}
	sources = append(sources, reg)

	// News and filings of the last 24 hours.
	nw := SourceStatus{Source: sourceNews, Status: statusOK, Detail: "news items and filings of the last 24 hours"}
	if rt.news != nil {
		if n, ok := rt.news.News24h(symbol, now); ok {
			in.News = &n
		}
	}
	if in.News == nil {
		nw.Status, nw.Detail = statusMissing, "no news or filings source on this server"
	}
	sources = append(sources, nw)

	// On-chain liquidity.
	slip := PreTradeSlippage{Method: liquidityMethodNone, Side: map[string]*float64{}}
	for _, size := range operators.OrderSizesUSD {
		slip.Side[strconv.Itoa(size)] = nil
	}
	liq := SourceStatus{Source: sourceLiquidity, Status: statusOK, Detail: "pool states from swap, mint and burn events"}
	var rep operators.LiquidityReport
	if rt.liquidity != nil {
		rep = rt.liquidity.Report(symbol)
	}
	if len(rep.Pools) > 0 && len(rep.Estimates) > 0 {
		known = true
		slip.Method, slip.LiquidityScore = operators.LiquidityMethod, rep.Score
		if rep.AsOfNs != 0 {
			s := time.Unix(0, rep.AsOfNs).UTC().Format(time.RFC3339Nano)
			slip.AsOf = &s
		}
		costs := map[int]*float64{}
		for _, size := range operators.OrderSizesUSD {
			if e, ok := rep.Cost(string(side), size); ok {
				costs[size] = e.CostBps
				slip.Side[strconv.Itoa(size)] = e.CostBps
			}
		}
		in.Slippage = &decision.Slippage{CostBps: costs}
	} else {
		liq.Status, liq.Detail = statusMissing, "no on-chain pool of the symbol"
	}
	sources = append(sources, liq)

	if !known {
		return PreTradeAnswer{}, false
	}
	as := decision.Assess(in)
	q := PreTradeQuality{KnownWeight: as.KnownWeight, UnknownChecks: []string{}, Sources: sources}
	for _, c := range as.Checks {
		if c.Result == decision.Unknown {
			q.UnknownChecks = append(q.UnknownChecks, c.Name)
		}
	}
	a := PreTradeAnswer{Symbol: symbol, Side: side, Window: window, FlowWindow: fw, Verdict: as.Verdict, Score: as.Score,
		Reasons: as.Reasons, Checks: as.Checks, Slippage: slip, DataQuality: q,
		Timestamp: now.UTC().Format(time.RFC3339Nano)}
	if isEquity(symbol) {
		sb := sessionBlock(now)
		a.Session = &sb
		notice := EquityPriceNotice
		a.PriceNotice = &notice
	}
	return a, true
}

// LiveCandles is the CandleSource over the live candle view of v: the
// symbols it keeps (views.PreviewSymbols), over its two-hour retention.
func LiveCandles(v *views.Views) CandleSource { return liveCandles{v} }

// liveCandles is the CandleSource over the live candle view.
type liveCandles struct{ v *views.Views }

// Closes implements CandleSource.
func (l liveCandles) Closes(symbol string, barMinutes, n int) ([]float64, bool) {
	c := l.v.Candles()
	if c == nil || time.Duration(barMinutes*n)*time.Minute > 2*time.Hour {
		return nil, false
	}
	bars, _, ok := c.Bars(symbol, n, int64(barMinutes)*int64(time.Minute), 0)
	if !ok {
		return nil, false
	}
	var closes []float64
	for _, b := range bars {
		if b.HasClose {
			closes = append(closes, b.Close)
		}
	}
	return closes, len(closes) > 0
}

// CandlesSource returns the candle source of the pre-trade check.
func (rt *Routes) CandlesSource() CandleSource { return rt.candles }

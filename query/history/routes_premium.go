package history

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/operators/premium"
	"github.com/marketintel/mi/operators/uscal"
	"github.com/marketintel/mi/pipeline/symbols"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
)

// pricePremium is the price of both premium routes, 0.01 USD (spec §8).
const pricePremium = 10_000

// premiumNotice is said by every premium answer (spec §1).
const premiumNotice = "Prices of tokenized equities are on-chain trade prices of the tokens, not official exchange quotes."

// premiumRule states how the premium is computed (docs/decisions.md).
const premiumRule = "premiumBp = 10000*(vwapA/vwapB-1); a group's vwap is its venues' vwaps weighted by base volume, per bin; " +
	"only bins with trades on both groups count"

// PremiumGroups names the two venue groups of the premium.
var premiumGroups = []premiumGroup{
	{"A", premium.Groups[0], "Solana DEX pools of the tokenized stocks (xStocks on Raydium, Orca, Meteora)"},
	{"B", premium.Groups[1], "EVM DEX pools of the tokenized stocks (Uniswap)"},
}

type premiumGroup struct {
	Group     string `json:"group"`
	VenueKind string `json:"venueKind"`
	Detail    string `json:"detail"`
}

var (
	premiumSymbolsParam = api.Text{Name: "symbols", Desc: "Comma-separated tickers of tokenized US equities, case-insensitive; every tokenized US equity of the registry when absent.",
		Check: func(raw string) *api.ParamError { _, e := parsePremiumSymbols(raw); return e }}
	premiumHoursParam   = api.Int{Name: "hours", Desc: "Hours of history before the last closed 15-minute bin.", Min: 1, Max: 168, Default: 24}
	premiumIntervalParm = api.Enum{Name: "interval", Values: []string{"15m", "1h"}, Default: "15m", Desc: "Bin width of the series."}

	groupsSchema = schema.Array(schema.Object("A venue group.", schema.Obj{
		{"group", schema.Enum("A", "B")}, {"venueKind", schema.String}, {"detail", schema.String},
	}))
	sessionLabels = []string{"WEEKEND", "OVERNIGHT", "PRE_MARKET", "REGULAR", "AFTER_HOURS"}
	latestSchema  = schema.Object("The latest premium of one stock.", schema.Obj{
		{"symbol", schema.String},
		{"premiumBp", schema.Number},
		{"binStart", schema.DateTime},
		{"vwapA", schema.Number}, {"vwapB", schema.Number},
		{"volumeUsd1hA", schema.Number}, {"volumeUsd1hB", schema.Number},
		{"session", schema.Described(schema.Enum(sessionLabels...), "US market session at the bin's start.")},
	})
	premiumListSchema = schema.Named{Name: "EquityPremiums", Schema: schema.Object("Latest premium per tokenized stock between two venue groups (spec §4.4).", schema.Obj{
		{"groups", groupsSchema},
		{"rule", schema.String},
		{"premiums", schema.Described(schema.Array(latestSchema), "Largest absolute premium first.")},
		{"withoutPremium", schema.Described(schema.Array(schema.String), "Requested stocks without a bin with trades on both groups in the hour.")},
		{"asOf", schema.Described(schema.DateTime, "End of the last closed 15-minute bin considered.")},
		{"session", schema.Described(schema.Enum(sessionLabels...), "US market session at asOf.")},
		{"priceNotice", schema.Const(premiumNotice)},
	})}
	statsProps = schema.Obj{
		{"points", schema.Count}, {"averageBp", schema.Number}, {"medianBp", schema.Number}, {"minBp", schema.Number}, {"maxBp", schema.Number},
	}
	premiumSeriesSchema = schema.Named{Name: "EquityPremiumSeries", Schema: schema.Object("Premium series of one tokenized stock (spec §4.4).", schema.Obj{
		{"symbol", schema.String},
		{"interval", schema.Enum("15m", "1h")},
		{"hours", schema.Count},
		{"groups", groupsSchema},
		{"rule", schema.String},
		{"points", schema.Array(schema.Object("One bin with trades on both groups.", schema.Obj{
			{"time", schema.DateTime}, {"premiumBp", schema.Number}, {"vwapA", schema.Number}, {"vwapB", schema.Number},
			{"volumeUsdA", schema.Number}, {"volumeUsdB", schema.Number}, {"session", schema.Enum(sessionLabels...)},
		}))},
		{"stats", schema.Object("Over every point.", statsProps)},
		{"sessions", schema.Described(schema.Array(schema.Object("Statistics of the points of one session.",
			append(schema.Obj{{"session", schema.Enum(sessionLabels...)}}, statsProps...))), "Sessions with points, in the order of a trading day.")},
		{"asOf", schema.DateTime},
		{"priceNotice", schema.Const(premiumNotice)},
	})}
)

func (rt *Routes) premiumOperations() []api.Operation {
	return []api.Operation{
		{
			Method: fiber.MethodGet, Path: "/api/v1/intelligence/premium", ID: "listEquityPremiums", Price: pricePremium,
			Summary: "Latest premium in basis points per tokenized stock between two venue groups, from the volume-weighted prices of the last 15-minute bin with trades on both within the hour, with both 1-hour volumes and the US market session; largest absolute premium first.",
			Params:  []api.Param{premiumSymbolsParam},
			Responses: []api.Response{
				api.JSON(fiber.StatusOK, "The premiums.", premiumListSchema),
				historyNoData("No requested stock has a bin with trades on both groups in the last hour; not charged."),
			},
			NoTool:  "spec §4.8 lists no premium tool; get_tokenized_equities answers the agent's equity question",
			Handler: rt.handlePremiums,
		},
		{
			Method: fiber.MethodGet, Path: "/api/v1/intelligence/premium/:symbol", ID: "getEquityPremium", Price: pricePremium,
			Summary: "Premium series of one tokenized stock between two venue groups: one point per bin with trades on both, average, median, min, max, and statistics per US market session.",
			Params:  []api.Param{api.SymbolPath, premiumHoursParam, premiumIntervalParm},
			Responses: []api.Response{
				api.JSON(fiber.StatusOK, "The series, oldest first.", premiumSeriesSchema),
				historyNoData("No bin with trades on both groups in the hours asked, or not a tokenized stock; not charged."),
			},
			NoTool:  "spec §4.8 lists no premium tool; a series for charts and quants",
			Handler: rt.handlePremiumSeries,
		},
	}
}

// pairedStocks are the registry's tokenized US equities.
func pairedStocks() []string {
	var out []string
	for _, a := range symbols.Assets() {
		if a.Class == symbols.USEquity {
			out = append(out, a.Symbol)
		}
	}
	slices.Sort(out)
	return out
}

// parsePremiumSymbols parses the symbols parameter: every tokenized US
// equity when raw is empty, else its comma-separated tickers, each one of
// them, without repeats.
func parsePremiumSymbols(raw string) ([]string, *api.ParamError) {
	paired := pairedStocks()
	if raw == "" {
		return paired, nil
	}
	bad := func(msg string) *api.ParamError {
		return &api.ParamError{Param: "symbols", Message: msg, Range: "comma-separated tickers of tokenized US equities: " + strings.Join(paired, ", ")}
	}
	var out []string
	for part := range strings.SplitSeq(raw, ",") {
		s, perr := api.ParseSymbol(part)
		if perr != nil {
			return nil, bad("symbols must be comma-separated tickers")
		}
		if !slices.Contains(paired, s) {
			return nil, bad(s + " is not a tokenized US equity")
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// premiumEnd returns the end of the last closed 15-minute bin at now.
func premiumEnd(now time.Time) time.Time { return now.UTC().Truncate(premium.BinWidth) }

// premiumBins reads the per-venue 15-minute candles of the groups of syms
// in [from, to) and folds them per symbol into bins of widthNs.
func (s *Store) premiumBins(ctx context.Context, syms []string, from, to time.Time, widthNs int64) (map[string][]premium.Bin, error) {
	res, err := s.Candles(ctx, CandleQuery{Symbols: syms, Interval: "15m", From: from, To: to, PerVenue: true, VenueKinds: premium.Groups[:]})
	if err != nil {
		return nil, err
	}
	rows := map[string][]premium.Row{}
	for _, c := range res.Candles {
		rows[c.Symbol] = append(rows[c.Symbol], premium.Row{StartNs: c.Time.UnixNano(), VenueKind: c.VenueKind,
			VWAP: c.VWAP, Volume: c.Volume, VolumeUSD: c.VolumeUSD, Trades: c.TradeCount})
	}
	out := map[string][]premium.Bin{}
	for sym, rs := range rows {
		out[sym] = premium.Fold(rs, widthNs)
	}
	return out, nil
}

type latestPremium struct {
	Symbol       string  `json:"symbol"`
	PremiumBp    float64 `json:"premiumBp"`
	BinStart     string  `json:"binStart"`
	VWAPA        float64 `json:"vwapA"`
	VWAPB        float64 `json:"vwapB"`
	VolumeUSD1hA float64 `json:"volumeUsd1hA"`
	VolumeUSD1hB float64 `json:"volumeUsd1hB"`
	Session      string  `json:"session"`
}

type premiumList struct {
	Groups         []premiumGroup  `json:"groups"`
	Rule           string          `json:"rule"`
	Premiums       []latestPremium `json:"premiums"`
	WithoutPremium []string        `json:"withoutPremium"`
	AsOf           string          `json:"asOf"`
	Session        string          `json:"session"`
	PriceNotice    string          `json:"priceNotice"`
}

func binTime(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339) }

// handlePremiums serves GET /api/v1/intelligence/premium.
func (rt *Routes) handlePremiums(c fiber.Ctx) error {
	syms, _ := parsePremiumSymbols(premiumSymbolsParam.Get(c)) // validated before the paywall
	if rt.store == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	end := premiumEnd(rt.now())
	bins, err := rt.store.premiumBins(c.Context(), syms, end.Add(-time.Hour), end, int64(premium.BinWidth))
	if err != nil {
		return historyErr(c, err, "no stored candles of the tokenized stocks in the last hour")
	}
	a := premiumList{Groups: premiumGroups, Rule: premiumRule, Premiums: []latestPremium{}, WithoutPremium: []string{},
		AsOf: end.Format(time.RFC3339), Session: string(uscal.SessionAt(end).Label), PriceNotice: premiumNotice}
	for _, s := range syms {
		l, ok := premium.LatestOf(bins[s], end.UnixNano())
		if !ok {
			a.WithoutPremium = append(a.WithoutPremium, s)
			continue
		}
		a.Premiums = append(a.Premiums, latestPremium{Symbol: s, PremiumBp: l.Bin.PremiumBp(), BinStart: binTime(l.Bin.StartNs),
			VWAPA: l.Bin.VWAP[0], VWAPB: l.Bin.VWAP[1], VolumeUSD1hA: l.VolumeUSD1h[0], VolumeUSD1hB: l.VolumeUSD1h[1],
			Session: string(uscal.SessionAt(time.Unix(0, l.Bin.StartNs)).Label)})
	}
	if len(a.Premiums) == 0 {
		return sendHistoryNoData(c, "no requested stock traded on both venue groups in the hour before "+a.AsOf)
	}
	slices.SortFunc(a.Premiums, func(x, y latestPremium) int {
		if d := math.Abs(y.PremiumBp) - math.Abs(x.PremiumBp); d != 0 {
			if d > 0 {
				return 1
			}
			return -1
		}
		return strings.Compare(x.Symbol, y.Symbol)
	})
	slices.Sort(a.WithoutPremium)
	return api.SendValue(c, fiber.StatusOK, a)
}

type premiumPoint struct {
	Time       string  `json:"time"`
	PremiumBp  float64 `json:"premiumBp"`
	VWAPA      float64 `json:"vwapA"`
	VWAPB      float64 `json:"vwapB"`
	VolumeUSDA float64 `json:"volumeUsdA"`
	VolumeUSDB float64 `json:"volumeUsdB"`
	Session    string  `json:"session"`
}

type sessionStats struct {
	Session string `json:"session"`
	premium.Stats
}

type premiumSeries struct {
	Symbol      string         `json:"symbol"`
	Interval    string         `json:"interval"`
	Hours       int64          `json:"hours"`
	Groups      []premiumGroup `json:"groups"`
	Rule        string         `json:"rule"`
	Points      []premiumPoint `json:"points"`
	Stats       premium.Stats  `json:"stats"`
	Sessions    []sessionStats `json:"sessions"`
	AsOf        string         `json:"asOf"`
	PriceNotice string         `json:"priceNotice"`
}

// handlePremiumSeries serves GET /api/v1/intelligence/premium/:symbol.
func (rt *Routes) handlePremiumSeries(c fiber.Ctx) error {
	sym, hours, iv := api.SymbolPath.Get(c), premiumHoursParam.Get(c), premiumIntervalParm.Get(c)
	if !slices.Contains(pairedStocks(), sym) {
		return sendHistoryNoData(c, sym+" is not a tokenized US equity; GET /api/v1/intelligence/premium lists the paired stocks")
	}
	if rt.store == nil {
		return sendHistoryNoData(c, "no history is configured on this server")
	}
	width := premium.BinWidth
	if iv == "1h" {
		width = time.Hour
	}
	end := premiumEnd(rt.now()).Truncate(width)
	bins, err := rt.store.premiumBins(c.Context(), []string{sym}, end.Add(-time.Duration(hours)*time.Hour), end, int64(width))
	if err != nil {
		return historyErr(c, err, "no stored candles of "+sym+" in the hours asked")
	}
	pts, all, per := premium.Series(bins[sym])
	if len(pts) == 0 {
		return sendHistoryNoData(c, sym+" did not trade on both venue groups in the hours asked")
	}
	a := premiumSeries{Symbol: sym, Interval: iv, Hours: hours, Groups: premiumGroups, Rule: premiumRule, Stats: all,
		AsOf: end.Format(time.RFC3339), PriceNotice: premiumNotice, Sessions: []sessionStats{}}
	for _, p := range pts {
		a.Points = append(a.Points, premiumPoint{Time: binTime(p.Bin.StartNs), PremiumBp: p.Bin.PremiumBp(), VWAPA: p.Bin.VWAP[0],
			VWAPB: p.Bin.VWAP[1], VolumeUSDA: p.Bin.VolumeUSD[0], VolumeUSDB: p.Bin.VolumeUSD[1], Session: string(p.Session)})
	}
	for _, l := range []uscal.SessionLabel{uscal.Overnight, uscal.PreMarket, uscal.Regular, uscal.AfterHours, uscal.Weekend} {
		if st, ok := per[l]; ok {
			a.Sessions = append(a.Sessions, sessionStats{Session: string(l), Stats: st})
		}
	}
	return api.SendValue(c, fiber.StatusOK, a)
}

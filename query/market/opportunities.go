package market

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/operators/opportunity"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/views"
)

// priceOpportunities is the price of each of the four opportunity routes,
// 0.03 USD (spec §8).
const priceOpportunities = 30_000

// MaxUniverse is the most symbols an opportunity scan accepts (spec §8).
const MaxUniverse = 100

// Opportunity scan vocabulary (spec §4.2).
var (
	AssetClasses      = []string{"crypto", "us_equity", "perp_only"}
	OpportunityBlocks = []string{"metrics", "evidence", "risk_factors", "data_quality", "track_record", "market_context"}
)

// universeParam is the comma-separated universe of the GET scan: at most
// MaxUniverse symbols, each a valid symbol; absent means every covered
// symbol.
type universeParam struct{}

const universeRange = "1 to 100 comma-separated symbols, each 1 to 32 characters: letters, digits, '.', '-', '_' (case-insensitive)"

// Spec implements api.Param.
func (universeParam) Spec() api.ParamSpec {
	return api.ParamSpec{Name: "universe", In: api.InQuery,
		Desc:   "Symbols to scan, comma-separated, at most 100; every covered symbol when absent.",
		Schema: schema.Obj{{"type", "string"}, {"minLength", 1}},
		ToolSchema: schema.Obj{{"type", "array"}, {"items", schema.Obj{{"type", "string"}, {"minLength", 1},
			{"maxLength", api.MaxSymbolLen}}}, {"maxItems", MaxUniverse}},
		Check: func(raw string, _ func() time.Time) *api.ParamError {
			if raw == "" {
				return nil
			}
			_, e := parseUniverse(strings.Split(raw, ","))
			return e
		}}
}

// parseUniverse checks and upper-cases the universe; a repeated symbol is
// kept once.
func parseUniverse(parts []string) ([]string, *api.ParamError) {
	bad := &api.ParamError{Param: "universe", Message: "universe must be " + universeRange, Range: universeRange}
	if len(parts) == 0 || len(parts) > MaxUniverse {
		return nil, bad
	}
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		s, e := api.ParseSymbol(p)
		if e != nil {
			return nil, bad
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// Parameters of the opportunity scan (spec §4.2, §8). The POST body's
// fields are checked by the same parameters, so both forms answer the
// same 400s.
var (
	objectiveParam = api.Enum{Name: "objective", Required: true, Values: opportunity.Objectives,
		Desc: "What to look for (docs/decisions.md, Opportunity scan)."}
	assetClassParam = api.Enum{Name: "assetClass", Values: AssetClasses,
		Desc: "Only symbols of this class; every class when absent. perp_only selects symbols with perp positioning."}
	oppWindowParam         = api.Enum{Name: "window", Values: schemas.Windows, Default: "5m", Desc: "Window of the trade-flow documents."}
	minBuyPressureParam    = api.Number{Name: "minBuyPressure", Min: 50, Max: 100, Default: 60, Desc: "Pressure on the objective's side, % (unusual_buying, unusual_selling)."}
	minVolumeMultipleParam = api.Number{Name: "minVolumeMultiple", Min: 0, Max: 1000, Default: 1.5, Desc: "Volume versus the symbol's own baseline."}
	minVolumeUsdParam      = api.Number{Name: "minVolumeUsd", Min: 0, Max: 1e12, Default: 0, Desc: "Notional traded in the window, USD."}
	minConfidenceParam     = api.Number{Name: "minConfidence", Min: 0, Max: 100, Default: 50, Desc: "The document's confidence score."}
	minSourcesParam        = api.Int{Name: "minIndependentSources", Min: 1, Max: 3, Default: 1,
		Desc: "Independent sources (spot_dex_flow, perp_positioning, smart_money) that must confirm the direction."}
	includeParam    = api.Subset{Name: "include", Values: OpportunityBlocks, Desc: "Blocks of each result to include; all when absent."}
	maxResultsParam = api.Int{Name: "maxResults", Min: 1, Max: 50, Default: 10, Desc: "Most results returned."}

	opportunityParams = []api.Param{objectiveParam, universeParam{}, assetClassParam, oppWindowParam, minBuyPressureParam,
		minVolumeMultipleParam, minVolumeUsdParam, minConfidenceParam, minSourcesParam, includeParam, maxResultsParam}
)

// OpportunityRequest is a checked scan request, from the GET parameters or
// the POST body.
type OpportunityRequest struct {
	Objective   opportunity.Objective
	Universe    []string // nil: every covered symbol
	AssetClass  string   // "" any
	Window      string
	Constraints opportunity.Constraints
	Include     []string
}

// requestFromQuery reads a GET request whose parameters are valid.
func requestFromQuery(c fiber.Ctx) OpportunityRequest {
	r := OpportunityRequest{Objective: opportunity.Objective(objectiveParam.Get(c)), AssetClass: assetClassParam.Get(c),
		Window: oppWindowParam.Get(c), Include: includeParam.Get(c)}
	if raw := c.Query("universe"); raw != "" {
		r.Universe, _ = parseUniverse(strings.Split(raw, ","))
	}
	r.Constraints = opportunity.Constraints{MinBuyPressure: minBuyPressureParam.Get(c), MinVolumeMultiple: minVolumeMultipleParam.Get(c),
		MinVolumeUsd: minVolumeUsdParam.Get(c), MinConfidence: minConfidenceParam.Get(c),
		MinIndependentSources: int(minSourcesParam.Get(c)), MaxResults: int(maxResultsParam.Get(c))}
	return r
}

// opportunityBody is the POST body of spec §4.2. Numbers are json.Number
// so that each is checked by its parameter's own rule.
type opportunityBody struct {
	Objective   *string         `json:"objective"`
	Universe    []string        `json:"universe"`
	Constraints *bodyConstraint `json:"constraints"`
	Include     []string        `json:"include"`
	MaxResults  *json.Number    `json:"maxResults"`
}

type bodyConstraint struct {
	Window                *string      `json:"window"`
	AssetClass            *string      `json:"assetClass"`
	MinBuyPressure        *json.Number `json:"minBuyPressure"`
	MinVolumeMultiple     *json.Number `json:"minVolumeMultiple"`
	MinVolumeUsd          *json.Number `json:"minVolumeUsd"`
	MinConfidence         *json.Number `json:"minConfidence"`
	MinIndependentSources *json.Number `json:"minIndependentSources"`
}

// Body field lists for the 400 of an unknown field.
var (
	opportunityBodyFields = []string{"objective", "universe", "constraints", "include", "maxResults"}
	constraintFields      = []string{"window", "assetClass", "minBuyPressure", "minVolumeMultiple", "minVolumeUsd", "minConfidence", "minIndependentSources"}
)

// maxOpportunityBody bounds the POST body, bytes.
const maxOpportunityBody = 16 << 10

// opportunityLocal is the request local holding the checked POST body.
const opportunityLocal = "mi.opportunityRequest"

// checkOpportunityBody parses and checks the POST body before the paywall,
// keeping the request in the locals.
func checkOpportunityBody(c fiber.Ctx) *api.ParamError {
	r, e := parseOpportunityBody(c.Body())
	if e != nil {
		return e
	}
	c.Locals(opportunityLocal, r)
	return nil
}

// parseOpportunityBody decodes and checks a POST body: the request, or the
// 400 of the first rejected field.
func parseOpportunityBody(raw []byte) (r OpportunityRequest, perr *api.ParamError) {
	defer func() {
		if perr != nil {
			r = OpportunityRequest{}
		}
	}()
	if len(raw) > maxOpportunityBody {
		return r, &api.ParamError{Param: "body", Message: "body must be a JSON object of at most 16 KiB", Range: "JSON object of at most 16 KiB"}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var b opportunityBody
	if err := dec.Decode(&b); err != nil || dec.More() {
		msg := "body must be a JSON object with the fields " + strings.Join(opportunityBodyFields, ", ") +
			"; constraints holds " + strings.Join(constraintFields, ", ")
		if err != nil {
			msg += ": " + err.Error()
		}
		return r, &api.ParamError{Param: "body", Message: msg, Accepted: opportunityBodyFields}
	}
	get := func(p api.Param, raw string) (string, *api.ParamError) {
		return raw, p.Spec().Check(raw, time.Now)
	}
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	var e *api.ParamError
	var v string
	if v, e = get(objectiveParam, str(b.Objective)); e != nil {
		return r, e
	}
	r.Objective = opportunity.Objective(v)
	if b.Universe != nil {
		if r.Universe, e = parseUniverse(b.Universe); e != nil {
			return r, e
		}
	}
	if b.Include != nil {
		if _, e = get(includeParam, strings.Join(b.Include, ",")); e != nil || len(b.Include) == 0 {
			if e == nil {
				e = &api.ParamError{Param: "include", Message: "include must be a non-empty subset of " + strings.Join(OpportunityBlocks, ", "), Accepted: OpportunityBlocks}
			}
			return r, e
		}
		for _, x := range OpportunityBlocks {
			if slices.Contains(b.Include, x) {
				r.Include = append(r.Include, x)
			}
		}
	} else {
		r.Include = OpportunityBlocks
	}
	k := b.Constraints
	if k == nil {
		k = &bodyConstraint{}
	}
	num := func(n *json.Number) string {
		if n == nil {
			return ""
		}
		return n.String()
	}
	if r.Window, e = get(oppWindowParam, str(k.Window)); e != nil {
		return r, e
	}
	if r.Window == "" {
		r.Window = oppWindowParam.Default
	}
	if r.AssetClass, e = get(assetClassParam, str(k.AssetClass)); e != nil {
		return r, e
	}
	floats := []struct {
		p   api.Number
		n   *json.Number
		dst *float64
	}{{minBuyPressureParam, k.MinBuyPressure, &r.Constraints.MinBuyPressure}, {minVolumeMultipleParam, k.MinVolumeMultiple, &r.Constraints.MinVolumeMultiple},
		{minVolumeUsdParam, k.MinVolumeUsd, &r.Constraints.MinVolumeUsd}, {minConfidenceParam, k.MinConfidence, &r.Constraints.MinConfidence}}
	for _, f := range floats {
		s := num(f.n)
		if _, e = get(f.p, s); e != nil {
			return r, e
		}
		*f.dst = f.p.Default
		if s != "" {
			*f.dst, _ = strconv.ParseFloat(s, 64)
		}
	}
	ints := []struct {
		p   api.Int
		n   *json.Number
		dst *int
	}{{minSourcesParam, k.MinIndependentSources, &r.Constraints.MinIndependentSources}, {maxResultsParam, b.MaxResults, &r.Constraints.MaxResults}}
	for _, f := range ints {
		s := num(f.n)
		if _, e = get(f.p, s); e != nil {
			return r, e
		}
		*f.dst = int(f.p.Default)
		if s != "" {
			n, _ := strconv.Atoi(s)
			*f.dst = n
		}
	}
	return r, nil
}

// SmartMoneySource gives the scan the smart-money net flows already
// computed (query/history keeps the last ranking of each symbol); it never
// reads the chain or the history on the request path.
type SmartMoneySource interface {
	// SmartMoney returns symbol's last net flow, Stale set when it is too
	// old at now, with the time of the ranking; false when there is none.
	SmartMoney(symbol string, now time.Time) (opportunity.SmartMoney, time.Time, bool)
	// SmartMoneySymbols lists the symbols with a ranking, sorted.
	SmartMoneySymbols() []string
	// WantSmartMoney asks for the missing or stale rankings of symbols to
	// be computed in the background, for a later scan.
	WantSmartMoney(symbols []string)
}

// TrackRecordSource gives the scan the live 1h hit rate of the logged
// signal changes, from what it already computed.
type TrackRecordSource interface {
	// HitRate1h returns the 1h outcome of the logged changes to signal
	// (BULLISH, BEARISH) of window, overall and for symbol; false when
	// the track record is not computed yet.
	HitRate1h(window, signal, symbol string) (TrackRecord1h, bool)
}

// TrackRecord1h is the signalTrackRecord1h block of a result: the hit rate
// 1 hour after the logged changes to the result's direction in the
// scan's window, over every symbol and over the result's symbol.
type TrackRecord1h struct {
	Horizon                    string   `json:"horizon"`
	Window                     string   `json:"window"`
	Signal                     string   `json:"signal"`
	Days                       int      `json:"days"`
	From                       string   `json:"from"`
	To                         string   `json:"to"`
	Samples                    int      `json:"samples"`
	HitRate                    *float64 `json:"hitRate"`
	AverageReturnPercent       *float64 `json:"averageReturnPercent"`
	SymbolSamples              int      `json:"symbolSamples"`
	SymbolHitRate              *float64 `json:"symbolHitRate"`
	SymbolAverageReturnPercent *float64 `json:"symbolAverageReturnPercent"`
	Source                     string   `json:"source"`
}

// Answer blocks.
type (
	// FlowMetrics are the document's measurements of a result (absent
	// when the symbol has no fresh document).
	FlowMetrics struct {
		BuyPressure        float64 `json:"buyPressure"`
		MomentumScore      float64 `json:"momentumScore"`
		PriceChangePercent float64 `json:"priceChangePercent"`
		VolumeMultiple     float64 `json:"volumeMultiple"`
		BaselineReady      bool    `json:"baselineReady"`
		VolumeUsd          float64 `json:"volumeUsd"`
		ConfidenceScore    float64 `json:"confidenceScore"`
		TradeCount         int64   `json:"tradeCount"`
		EventType          string  `json:"eventType"`
	}
	// PositioningMetrics are the perp positioning totals of a result.
	PositioningMetrics struct {
		OpenInterestUsd          float64  `json:"openInterestUsd"`
		LongSharePercent         *float64 `json:"longSharePercent"`
		ShortSharePercent        *float64 `json:"shortSharePercent"`
		FundingAnnualizedPercent float64  `json:"fundingAnnualizedPercent"`
		Flag                     string   `json:"flag"`
		Stale                    bool     `json:"stale"`
		ObservedAt               string   `json:"observedAt"`
	}
	// SmartMoneyMetrics are the smart-money net flow of a result.
	SmartMoneyMetrics struct {
		TopDecileDirection   string  `json:"topDecileDirection"`
		TopDecileWallets     int     `json:"topDecileWallets"`
		TopDecileBuyUsd      float64 `json:"topDecileBuyUsd"`
		TopDecileSellUsd     float64 `json:"topDecileSellUsd"`
		TopDecileNetFlowUsd  float64 `json:"topDecileNetFlowUsd"`
		AllWalletsNetFlowUsd float64 `json:"allWalletsNetFlowUsd"`
		Stale                bool    `json:"stale"`
		AsOf                 string  `json:"asOf"`
	}
	// OpportunityMetrics are the measurements of a result, one block per
	// source that holds the symbol.
	OpportunityMetrics struct {
		*FlowMetrics
		Positioning *PositioningMetrics `json:"positioning,omitempty"`
		SmartMoney  *SmartMoneyMetrics  `json:"smartMoney,omitempty"`
	}
	// ResultQuality is the dataQuality block of a result.
	ResultQuality struct {
		Window      string   `json:"window"`
		AsOf        string   `json:"asOf"`
		AgeSeconds  int64    `json:"ageSeconds"`
		Sources     []string `json:"sources"`
		Unavailable []string `json:"unavailableSources"`
	}
	// OpportunityResult is one ranked result (spec §2.9).
	OpportunityResult struct {
		Rank                int                     `json:"rank"`
		Symbol              string                  `json:"symbol"`
		Direction           string                  `json:"direction"`
		Score               int                     `json:"score"`
		ConfirmingSources   []string                `json:"confirmingSources"`
		Metrics             *OpportunityMetrics     `json:"metrics,omitempty"`
		SupportingEvidence  *[]opportunity.Evidence `json:"supportingEvidence,omitempty"`
		ConflictingEvidence *[]opportunity.Evidence `json:"conflictingEvidence,omitempty"`
		RiskFactors         *[]opportunity.Risk     `json:"riskFactors,omitempty"`
		DataQuality         *ResultQuality          `json:"dataQuality,omitempty"`
		// SignalTrackRecord1h is present (possibly null) with include
		// track_record.
		SignalTrackRecord1h **TrackRecord1h `json:"signalTrackRecord1h,omitempty"`
		NextCalls           []string        `json:"nextCalls"`
	}
	// MarketContext is the market_context block: the regime of the window.
	MarketContext struct {
		Regime             string  `json:"regime"`
		CoveredSymbols     int     `json:"coveredSymbols"`
		AverageBuyPressure float64 `json:"averageBuyPressure"`
	}
	// OpportunityQuality is the answer's dataQuality block.
	OpportunityQuality struct {
		SymbolsScanned  int            `json:"symbolsScanned"`
		Sources         []SourceStatus `json:"sources"`
		TrackRecordNote string         `json:"trackRecordNote"`
	}
	// OpportunityAnswer is the body of the opportunity routes (spec §2.9).
	OpportunityAnswer struct {
		Objective     string              `json:"objective"`
		Window        string              `json:"window"`
		Results       []OpportunityResult `json:"results"`
		FilteredOut   map[string]int      `json:"filteredOut"`
		MarketContext *MarketContext      `json:"marketContext,omitempty"`
		DataQuality   OpportunityQuality  `json:"dataQuality"`
		Timestamp     string              `json:"timestamp"`
	}
)

// Notes of the answer's dataQuality.trackRecordNote.
const (
	trackRecordNoteOK      = "signalTrackRecord1h: share of the logged changes to the result's direction in the scan's window over the last 30 days whose return 1 hour later was positive in that direction (GET /api/v1/intelligence/track-record); recomputed every 5 minutes"
	trackRecordNoteNoStore = "signalTrackRecord1h is null: this server has no history store, so no track record"
	trackRecordNoteWarming = "signalTrackRecord1h is null: the track record is being computed in the background; a later call carries it"
)

// scanSymbol is what the scan holds of one symbol besides its reading.
type scanSymbol struct {
	doc        *schemas.IntelligenceDocument
	crowding   *views.Crowding
	smartAsOf  time.Time
	hasSmart   bool
	assetClass string
}

// Opportunities runs the scan of r over what the sources hold. ok is false
// when neither the window's documents nor the objective's own source hold
// any fresh reading (404 no_data).
func (rt *Routes) Opportunities(r OpportunityRequest) (OpportunityAnswer, bool) {
	now := rt.now()
	m := rt.market(r.Window)
	primary := r.Objective.Source()

	// The universe: the caller's, or every covered symbol — the fresh
	// documents and the symbols the objective's own source holds.
	universe := r.Universe
	if universe == nil {
		universe = make([]string, 0, len(m.docs))
		for _, d := range m.docs {
			universe = append(universe, d.Symbol)
		}
		var more []string
		switch {
		case primary == opportunity.SourcePositioning && rt.positioning != nil:
			more = rt.positioning.Symbols()
		case primary == opportunity.SourceSmartMoney && rt.smartMoney != nil:
			more = rt.smartMoney.SmartMoneySymbols()
		}
		if len(more) > 0 {
			universe = mergeSorted(universe, more)
		}
	}

	// One backing array per kind of reading: a scan of 1,000 symbols makes
	// a handful of allocations, not thousands.
	readings := make([]opportunity.Reading, 0, len(universe))
	infos := make([]scanSymbol, 0, len(universe))
	flows := make([]opportunity.Flow, 0, len(universe))
	var positions []opportunity.Positioning
	var crowds []views.Crowding
	if rt.positioning != nil {
		positions, crowds = make([]opportunity.Positioning, 0, len(universe)), make([]views.Crowding, 0, len(universe))
	}
	var smarts []opportunity.SmartMoney
	if rt.smartMoney != nil {
		smarts = make([]opportunity.SmartMoney, 0, len(universe))
	}
	primaryFresh := false
	var wantSmart []string
	for _, sym := range universe {
		rd := opportunity.Reading{Symbol: sym}
		si := scanSymbol{}
		if d, ok := m.get(sym); ok {
			si.doc = d
			flows = append(flows, opportunity.Flow{Symbol: d.Symbol, BuyPressure: finite(d.BuyPressure), MomentumScore: finite(d.MomentumScore),
				PriceChangePercent: finite(d.PriceChangePercent), VolumeMultiple: finite(d.VolumeMultiple), BaselineReady: d.BaselineReady,
				VolumeUsd: finite(d.Volume) * finite(d.Price), Confidence: finite(d.ConfidenceScore), TradeCount: d.TradeCount, EventType: d.EventType})
			rd.Flow = &flows[len(flows)-1]
		}
		if rt.positioning != nil {
			if c, ok := rt.positioning.Crowding(sym, now); ok {
				crowds = append(crowds, c)
				si.crowding, si.assetClass = &crowds[len(crowds)-1], c.AssetClass
				positions = append(positions, opportunity.Positioning{OpenInterestUSD: c.OpenInterestUSD, HasShare: c.HasShare, LongShare: c.LongShare,
					ShortShare: c.ShortShare, FundingAnnualizedPercent: c.FundingAnnualizedPercent, Flag: c.Flag, Stale: c.Stale})
				rd.Positioning = &positions[len(positions)-1]
			}
		}
		if rt.smartMoney != nil {
			if sm, asOf, ok := rt.smartMoney.SmartMoney(sym, now); ok {
				smarts = append(smarts, sm)
				rd.SmartMoney, si.smartAsOf, si.hasSmart = &smarts[len(smarts)-1], asOf, true
			}
			if primary == opportunity.SourceSmartMoney && (rd.SmartMoney == nil || rd.SmartMoney.Stale) {
				wantSmart = append(wantSmart, sym)
			}
		}
		if !inAssetClass(r.AssetClass, sym, si.assetClass) {
			continue
		}
		switch primary {
		case opportunity.SourceSpotFlow:
			primaryFresh = primaryFresh || rd.Flow != nil
		case opportunity.SourcePositioning:
			primaryFresh = primaryFresh || rd.Positioning != nil && !rd.Positioning.Stale
		case opportunity.SourceSmartMoney:
			primaryFresh = primaryFresh || rd.SmartMoney != nil && !rd.SmartMoney.Stale
		}
		infos = append(infos, si)
		readings = append(readings, rd)
	}
	if len(wantSmart) > 0 {
		rt.smartMoney.WantSmartMoney(wantSmart)
	}
	if len(m.docs) == 0 && !primaryFresh {
		return OpportunityAnswer{}, false
	}

	res := opportunity.Scan(r.Objective, r.Constraints, readings)
	has := func(b string) bool { return slices.Contains(r.Include, b) }
	a := OpportunityAnswer{Objective: string(r.Objective), Window: r.Window, Results: make([]OpportunityResult, 0, len(res.Candidates)),
		FilteredOut: res.FilteredOut, Timestamp: now.UTC().Format(time.RFC3339Nano)}
	trackNote := trackRecordNoteOK
	switch {
	case rt.trackRecord == nil:
		trackNote = trackRecordNoteNoStore
	case has("track_record"):
		if _, ok := rt.trackRecord.HitRate1h(r.Window, opportunity.Bullish, ""); !ok {
			trackNote = trackRecordNoteWarming
		}
	}
	// The results' symbols, to find what the scan held of them.
	at := make(map[string]int, len(res.Candidates))
	for _, cand := range res.Candidates {
		at[cand.Symbol] = -1
	}
	for i, rd := range readings {
		if _, ok := at[rd.Symbol]; ok {
			at[rd.Symbol] = i
		}
	}
	for i, cand := range res.Candidates {
		side := "buy"
		if cand.Direction == opportunity.Bearish {
			side = "sell"
		}
		si := &infos[at[cand.Symbol]]
		out := OpportunityResult{Rank: i + 1, Symbol: cand.Symbol, Direction: cand.Direction, Score: cand.Score,
			ConfirmingSources: cand.ConfirmingSources,
			NextCalls: []string{"/api/v1/intelligence/pre-trade?symbol=" + cand.Symbol + "&side=" + side + "&window=" + r.Window,
				"/api/v1/intelligence/" + cand.Symbol + "?window=" + r.Window}}
		switch primary {
		case opportunity.SourcePositioning:
			out.NextCalls = append(out.NextCalls, "/api/v1/intelligence/positioning/"+cand.Symbol)
		case opportunity.SourceSmartMoney:
			out.NextCalls = append(out.NextCalls, "/api/v1/intelligence/smart-money/"+cand.Symbol)
		}
		if has("metrics") {
			out.Metrics = resultMetrics(cand, si)
		}
		if has("evidence") {
			out.SupportingEvidence, out.ConflictingEvidence = &cand.Supporting, &cand.Conflicting
		}
		if has("risk_factors") {
			out.RiskFactors = &cand.Risks
		}
		if has("data_quality") {
			out.DataQuality = resultQuality(r.Window, primary, now, si)
		}
		if has("track_record") {
			var tr *TrackRecord1h
			if rt.trackRecord != nil {
				if x, ok := rt.trackRecord.HitRate1h(r.Window, cand.Direction, cand.Symbol); ok {
					tr = &x
				}
			}
			out.SignalTrackRecord1h = &tr
		}
		a.Results = append(a.Results, out)
	}
	if has("market_context") {
		a.MarketContext = &MarketContext{Regime: m.regime, CoveredSymbols: len(m.docs), AverageBuyPressure: m.avgBuyPressure}
	}
	a.DataQuality = OpportunityQuality{SymbolsScanned: len(readings), TrackRecordNote: trackNote, Sources: rt.scanSources(r.Window, m)}
	return a, true
}

// inAssetClass reports whether sym belongs to class ("" any): us_equity by
// the registry's equities, perp_only by the class of its perps, crypto the
// others.
func inAssetClass(class, sym, perpClass string) bool {
	switch class {
	case "crypto":
		return !isEquity(sym) && perpClass != "perp_only"
	case "us_equity":
		return isEquity(sym)
	case "perp_only":
		return perpClass == "perp_only"
	}
	return true
}

// mergeSorted returns the union of two sorted symbol lists, sorted.
func mergeSorted(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// resultMetrics is the metrics block of a result.
func resultMetrics(cand opportunity.Candidate, si *scanSymbol) *OpportunityMetrics {
	out := &OpportunityMetrics{}
	if f := cand.Flow; cand.HasFlow {
		out.FlowMetrics = &FlowMetrics{BuyPressure: f.BuyPressure, MomentumScore: f.MomentumScore, PriceChangePercent: f.PriceChangePercent,
			VolumeMultiple: f.VolumeMultiple, BaselineReady: f.BaselineReady, VolumeUsd: f.VolumeUsd, ConfidenceScore: f.Confidence,
			TradeCount: f.TradeCount, EventType: f.EventType}
	}
	if c := si.crowding; c != nil {
		p := &PositioningMetrics{OpenInterestUsd: c.OpenInterestUSD, FundingAnnualizedPercent: c.FundingAnnualizedPercent, Flag: c.Flag,
			Stale: c.Stale, ObservedAt: c.ObservedAt.UTC().Format(time.RFC3339Nano)}
		if c.HasShare {
			l, s := math.Round(c.LongShare*1e4)/100, math.Round(c.ShortShare*1e4)/100
			p.LongSharePercent, p.ShortSharePercent = &l, &s
		}
		out.Positioning = p
	}
	if sm := cand.SmartMoney; sm != nil {
		out.SmartMoney = &SmartMoneyMetrics{TopDecileDirection: sm.Direction, TopDecileWallets: sm.TopDecileWallets, TopDecileBuyUsd: sm.TopDecileBuyUSD,
			TopDecileSellUsd: sm.TopDecileSellUSD, TopDecileNetFlowUsd: sm.TopDecileNetUSD, AllWalletsNetFlowUsd: sm.AllWalletsNet, Stale: sm.Stale,
			AsOf: si.smartAsOf.UTC().Format(time.RFC3339Nano)}
	}
	return out
}

// resultQuality is the dataQuality block of a result: the time of the
// objective's own source's reading (the document's last trade, the oldest
// perp observation in the totals, the smart-money ranking), the sources
// that hold the symbol and the ones that do not.
func resultQuality(window, primary string, now time.Time, si *scanSymbol) *ResultQuality {
	q := &ResultQuality{Window: window, Sources: []string{}, Unavailable: []string{}}
	held := map[string]bool{opportunity.SourceSpotFlow: si.doc != nil, opportunity.SourcePositioning: si.crowding != nil,
		opportunity.SourceSmartMoney: si.hasSmart}
	var asOf int64
	switch primary {
	case opportunity.SourceSpotFlow:
		asOf = lastTradeNs(si.doc)
	case opportunity.SourcePositioning:
		asOf = si.crowding.ObservedAt.UnixNano()
	case opportunity.SourceSmartMoney:
		asOf = si.smartAsOf.UnixNano()
	}
	for _, s := range opportunity.Sources {
		if held[s] {
			q.Sources = append(q.Sources, s)
		} else {
			q.Unavailable = append(q.Unavailable, s)
		}
	}
	q.AsOf = time.Unix(0, asOf).UTC().Format(time.RFC3339Nano)
	q.AgeSeconds = max(0, (now.UnixNano()-asOf)/int64(time.Second))
	return q
}

// scanSources is the answer's dataQuality.sources: whether each source is
// connected and holds anything.
func (rt *Routes) scanSources(window string, m *market) []SourceStatus {
	flow := SourceStatus{Source: opportunity.SourceSpotFlow, Status: statusOK, Detail: "fresh documents of the " + window + " window"}
	if len(m.docs) == 0 {
		flow.Status, flow.Detail = statusMissing, "no fresh document in the "+window+" window"
	}
	pos := SourceStatus{Source: opportunity.SourcePositioning, Status: statusOK, Detail: "perp positioning view (open interest, long/short share, funding)"}
	switch {
	case rt.positioning == nil:
		pos.Status, pos.Detail = statusMissing, "no perp positioning view on this server"
	case len(rt.positioning.Symbols()) == 0:
		pos.Status, pos.Detail = statusMissing, "the perp positioning view holds no symbol yet"
	}
	sm := SourceStatus{Source: opportunity.SourceSmartMoney, Status: statusOK,
		Detail: "last smart-money ranking of each symbol (fresh for 1 hour; the scan asks for missing ones in the background)"}
	switch {
	case rt.smartMoney == nil:
		sm.Status, sm.Detail = statusMissing, "no history store on this server: no smart-money rankings"
	case len(rt.smartMoney.SmartMoneySymbols()) == 0:
		sm.Status, sm.Detail = statusMissing, "no smart-money ranking computed yet; a smart-money scan asks for them in the background"
	}
	return []SourceStatus{flow, pos, sm}
}

var errNoOpportunityRequest = errors.New("BUG: opportunity request missing from the locals")

// Schemas of the answer.
var (
	evidenceSchema = schema.Object("One observation for or against the result.", schema.Obj{
		{"source", schema.Enum(opportunity.Sources...)},
		{"type", schema.String},
		{"direction", schema.Enum(opportunity.Bullish, opportunity.Bearish, opportunity.Activity)},
		{"observedValue", schema.Number},
		{"unit", schema.String},
		{"detail", schema.String},
	})
	riskSchema = schema.Object("A risk factor of the result.", schema.Obj{
		{"type", schema.String}, {"severity", schema.Enum("low", "medium", "high")}, {"detail", schema.String},
	})
	filteredOutProps = func() schema.Obj {
		var o schema.Obj
		for _, r := range opportunity.Reasons {
			o = append(o, schema.KV{r, schema.Count})
		}
		return o
	}()
	nullablePercent     = schema.Obj{{"type", []string{"number", "null"}}, {"minimum", 0}, {"maximum", 100}}
	trackRecord1hSchema = func() schema.Obj {
		o := schema.Object("Live 1h hit rate of the signal (include track_record): the logged changes to the result's direction in the scan's window over the last 30 days, scored 1 hour later; null until the track record is computed (dataQuality.trackRecordNote).", schema.Obj{
			{"horizon", schema.Const("1h")}, {"window", schema.Enum(schemas.Windows...)}, {"signal", schema.Enum(opportunity.Bullish, opportunity.Bearish)},
			{"days", schema.Count}, {"from", schema.DateTime}, {"to", schema.DateTime},
			{"samples", schema.Described(schema.Count, "Changes to the signal, any symbol, whose hour has elapsed.")},
			{"hitRate", schema.Described(nullablePercent, "Percentage of the samples with a positive return in the signal's direction; null without samples.")},
			{"averageReturnPercent", schema.Nullable("number")},
			{"symbolSamples", schema.Count}, {"symbolHitRate", nullablePercent}, {"symbolAverageReturnPercent", schema.Nullable("number")},
			{"source", schema.String},
		})
		for i := range o {
			if o[i].K == "type" {
				o[i].V = []string{"object", "null"}
			}
		}
		return o
	}()
	opportunityResultSchema = schema.ObjectRequiring("One ranked result (spec §2.9); the blocks not in include are absent.", schema.Obj{
		{"rank", schema.Count},
		{"symbol", schema.String},
		{"direction", schema.Enum(opportunity.Bullish, opportunity.Bearish)},
		{"score", schema.Percent()},
		{"confirmingSources", schema.Array(schema.Enum(opportunity.Sources...))},
		{"metrics", schema.ObjectRequiring("Measurements of each source holding the symbol (include metrics): the document's fields when it has a fresh document, positioning, smartMoney.", schema.Obj{
			{"buyPressure", schema.Percent()}, {"momentumScore", schema.Number}, {"priceChangePercent", schema.Number},
			{"volumeMultiple", schema.Number}, {"baselineReady", schema.Bool}, {"volumeUsd", schema.Number},
			{"confidenceScore", schema.Number}, {"tradeCount", schema.Count}, {"eventType", schema.String},
			{"positioning", schema.Object("Perp positioning totals (source perp_positioning).", schema.Obj{
				{"openInterestUsd", schema.Number},
				{"longSharePercent", schema.Described(schema.Nullable("number"), "Open-interest-weighted long share of the venues that publish one, percent; null when none does.")},
				{"shortSharePercent", schema.Nullable("number")},
				{"fundingAnnualizedPercent", schema.Number},
				{"flag", schema.Enum("CROWDED_LONG", "CROWDED_SHORT", "THIN", "NONE")},
				{"stale", schema.Bool}, {"observedAt", schema.DateTime},
			})},
			{"smartMoney", schema.Object("Net flow of the most profitable wallets since midnight UTC yesterday (source smart_money).", schema.Obj{
				{"topDecileDirection", schema.Enum("BUYING", "SELLING", "FLAT")}, {"topDecileWallets", schema.Count},
				{"topDecileBuyUsd", schema.Number}, {"topDecileSellUsd", schema.Number}, {"topDecileNetFlowUsd", schema.Number},
				{"allWalletsNetFlowUsd", schema.Number}, {"stale", schema.Bool}, {"asOf", schema.DateTime},
			})},
		})},
		{"supportingEvidence", schema.Array(evidenceSchema)},
		{"conflictingEvidence", schema.Array(evidenceSchema)},
		{"riskFactors", schema.Array(riskSchema)},
		{"dataQuality", schema.Object("Freshness of the result's inputs (include data_quality).", schema.Obj{
			{"window", schema.Enum(schemas.Windows...)}, {"asOf", schema.DateTime}, {"ageSeconds", schema.Count},
			{"sources", schema.Array(schema.String)}, {"unavailableSources", schema.Array(schema.String)},
		})},
		{"signalTrackRecord1h", trackRecord1hSchema},
		{"nextCalls", schema.Array(schema.String)},
	}, "rank", "symbol", "direction", "score", "confirmingSources", "nextCalls")
	opportunitySchema = schema.Named{Name: "OpportunityScan", Schema: schema.ObjectRequiring("Opportunity scan (spec §2.9, §4.2).", schema.Obj{
		{"objective", schema.Enum(opportunity.Objectives...)},
		{"window", schema.Enum(schemas.Windows...)},
		{"results", schema.Array(opportunityResultSchema)},
		{"filteredOut", schema.Object("Symbols left out, per reason.", filteredOutProps)},
		{"marketContext", schema.Object("Regime of the window (include market_context).", schema.Obj{
			{"regime", schema.String}, {"coveredSymbols", schema.Count}, {"averageBuyPressure", schema.Percent()},
		})},
		{"dataQuality", schema.Object("Which sources the scan read.", schema.Obj{
			{"symbolsScanned", schema.Count}, {"sources", schema.Array(sourceStatusSchema)}, {"trackRecordNote", schema.String},
		})},
		{"timestamp", schema.DateTime},
	}, "objective", "window", "results", "filteredOut", "dataQuality", "timestamp")}
	opportunityBodySchema = schema.Named{Name: "OpportunityScanRequest", Schema: schema.ObjectRequiring("POST body of the opportunity scan (spec §4.2).", schema.Obj{
		{"objective", schema.Enum(opportunity.Objectives...)},
		{"universe", schema.Obj{{"type", "array"}, {"items", schema.String}, {"maxItems", MaxUniverse}}},
		{"constraints", schema.Object("Optional constraints; the GET parameters' ranges and defaults.", schema.Obj{
			{"window", schema.Enum(schemas.Windows...)}, {"assetClass", schema.Enum(AssetClasses...)},
			{"minBuyPressure", schema.Obj{{"type", "number"}, {"minimum", 50}, {"maximum", 100}}},
			{"minVolumeMultiple", schema.Obj{{"type", "number"}, {"minimum", 0}, {"maximum", 1000}}},
			{"minVolumeUsd", schema.Obj{{"type", "number"}, {"minimum", 0}}},
			{"minConfidence", schema.Obj{{"type", "number"}, {"minimum", 0}, {"maximum", 100}}},
			{"minIndependentSources", schema.Obj{{"type", "integer"}, {"minimum", 1}, {"maximum", 3}}},
		})},
		{"include", schema.Array(schema.Enum(OpportunityBlocks...))},
		{"maxResults", schema.Obj{{"type", "integer"}, {"minimum", 1}, {"maximum", 50}}},
	}, "objective")}
)

// opportunityOperations are the four scan routes: GET and POST on the
// intelligence path and on the agent alias.
func (rt *Routes) opportunityOperations() []api.Operation {
	serve := func(c fiber.Ctx, r OpportunityRequest) error {
		a, ok := rt.Opportunities(r)
		if !ok {
			return api.SendError(c, fiber.StatusNotFound, api.CodeNoData, "no fresh trade-flow document in the "+r.Window+" window")
		}
		return api.SendValue(c, fiber.StatusOK, a)
	}
	responses := []api.Response{
		api.JSON(fiber.StatusOK, "Ranked results, possibly none (a valid answer when data is fresh), and the symbols left out per reason.", opportunitySchema),
		api.JSON(fiber.StatusNotFound, "No fresh data at all in the window; not charged.", decisionNoDataSchema),
	}
	summary := "Opportunity scan: ranked symbols for an objective with evidence for and against, risk factors, data quality and suggested next calls; deterministic, no model."
	get := func(path, id string, tool *api.Tool, noTool string) api.Operation {
		return api.Operation{Method: fiber.MethodGet, Path: path, ID: id, Price: priceOpportunities, Summary: summary,
			Params: opportunityParams, Responses: responses, Tool: tool, NoTool: noTool,
			Handler: func(c fiber.Ctx) error { return serve(c, requestFromQuery(c)) }}
	}
	post := func(path, id string) api.Operation {
		return api.Operation{Method: fiber.MethodPost, Path: path, ID: id, Price: priceOpportunities, Summary: summary,
			Body:      &api.Body{Schema: opportunityBodySchema, Fields: append([]string{"body", "universe"}, opportunityParamsNames()...), Check: checkOpportunityBody},
			Responses: responses, NoTool: "the POST form of find_opportunities (the tool calls the GET route)",
			Handler: func(c fiber.Ctx) error {
				r, ok := c.Locals(opportunityLocal).(OpportunityRequest)
				if !ok {
					return errNoOpportunityRequest
				}
				return serve(c, r)
			}}
	}
	return []api.Operation{
		get("/api/v1/intelligence/opportunities", "getOpportunities", &api.Tool{Name: "find_opportunities",
			Description: "Ranked symbols for an objective (unusual_buying, unusual_selling, breakout, breakdown, crowded_positioning, smart_money_accumulation, smart_money_distribution) with evidence for and against, risk factors, data quality and suggested next calls. Deterministic; an empty list means nothing qualifies."}, ""),
		post("/api/v1/intelligence/opportunities", "postOpportunities"),
		get("/api/v1/agent/opportunities", "getAgentOpportunities", nil, "alias of GET /api/v1/intelligence/opportunities (find_opportunities)"),
		post("/api/v1/agent/opportunities", "postAgentOpportunities"),
	}
}

// opportunityParamsNames are the names of the scan's parameters, which a
// 400 about the POST body may carry.
func opportunityParamsNames() []string {
	var out []string
	for _, p := range opportunityParams {
		if n := p.Spec().Name; n != "universe" {
			out = append(out, n)
		}
	}
	return out
}

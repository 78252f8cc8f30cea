package perps

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/marketintel/mi/schemas"
)

// Bybit v5, linear perpetuals (https://api.bybit.com). Endpoints read:
//
//	GET /v5/market/tickers?category=linear              every linear perp: open interest (contracts and USD value), mark, index, funding, next funding, interval
//	GET /v5/market/instruments-info?category=linear     status and funding interval (minutes) of every perp; hourly
//	GET /v5/market/account-ratio?category=linear&period=5min per configured symbol: share of position holders long and short
//	GET /v5/market/open-interest?category=linear&intervalTime=15min per configured symbol, first poll: 25 h of open interest (contracts)
//
// Every answer is an envelope {retCode, retMsg, result, retExtInfo, time};
// retCode ≠ 0 is an error (10001 = bad parameter, e.g. an unknown symbol;
// 10006 = too many visits).

// BybitDefaultFundingHours is the funding interval of a Bybit perp whose
// interval neither the ticker nor instruments-info gives.
const BybitDefaultFundingHours = 8

// bybitEnvelope decodes the v5 envelope and returns its result and its time
// (ns; 0 when absent).
func bybitEnvelope(endpoint string, b []byte, result any) (int64, error) {
	var env struct {
		RetCode *int64          `json:"retCode"`
		RetMsg  string          `json:"retMsg"`
		Result  json.RawMessage `json:"result"`
		Time    int64           `json:"time"`
	}
	if err := decodeStrict(b, &env); err != nil {
		return 0, malformed(VenueBybit, endpoint, err)
	}
	if env.RetCode == nil {
		return 0, malformed(VenueBybit, endpoint, errors.New("no retCode"))
	}
	if *env.RetCode != 0 {
		return 0, &ParseError{Reason: ReasonVenueError, Venue: VenueBybit, Endpoint: endpoint, Detail: fmt.Sprintf("retCode %d: %s", *env.RetCode, env.RetMsg)}
	}
	if err := json.Unmarshal(env.Result, result); err != nil {
		return 0, malformed(VenueBybit, endpoint, fmt.Errorf("result: %w", err))
	}
	var ns int64
	if env.Time != 0 {
		var err error
		if ns, err = msNs("time", env.Time); err != nil {
			return 0, malformed(VenueBybit, endpoint, err)
		}
	}
	return ns, nil
}

// BybitTicker is one linear perp of tickers.
type BybitTicker struct {
	VenueSymbol     string
	OpenInterest    float64 // contracts
	OpenInterestUSD float64 // openInterestValue
	Mark, Index     float64
	FundingRate     float64
	NextFundingNs   int64
	IntervalHours   float64 // fundingIntervalHour; 0 when the answer does not carry it
	Turnover24h     float64 // USD
}

// BybitTickerFields are the fields of one ticker, as the REST list items and
// the tickers WebSocket topic both send them.
type BybitTickerFields struct {
	Symbol          string `json:"symbol"`
	MarkPrice       string `json:"markPrice"`
	IndexPrice      string `json:"indexPrice"`
	OpenInterest    string `json:"openInterest"`
	OpenInterestVal string `json:"openInterestValue"`
	FundingRate     string `json:"fundingRate"`
	NextFundingTime string `json:"nextFundingTime"`
	FundingInterval string `json:"fundingIntervalHour"`
	Turnover24h     string `json:"turnover24h"`
}

// Ticker checks and converts the fields of one ticker.
func (f *BybitTickerFields) Ticker() (BybitTicker, error) {
	t := BybitTicker{VenueSymbol: f.Symbol}
	if f.Symbol == "" {
		return t, fmt.Errorf("%s: ticker without symbol", ReasonBadValue)
	}
	var errs [8]error
	t.Mark, errs[0] = num("markPrice", f.MarkPrice)
	t.OpenInterest, errs[1] = num("openInterest", f.OpenInterest)
	t.OpenInterestUSD, errs[2] = num("openInterestValue", f.OpenInterestVal)
	t.FundingRate, errs[3] = num("fundingRate", f.FundingRate)
	if f.IndexPrice != "" {
		t.Index, errs[4] = num("indexPrice", f.IndexPrice)
	}
	if f.NextFundingTime != "" && f.NextFundingTime != "0" {
		t.NextFundingNs, errs[5] = msStrNs("nextFundingTime", f.NextFundingTime)
	}
	if f.FundingInterval != "" {
		t.IntervalHours, errs[6] = num("fundingIntervalHour", f.FundingInterval)
		if errs[6] == nil && !(t.IntervalHours > 0 && t.IntervalHours <= schemas.MaxFundingIntervalHours) {
			errs[6] = fmt.Errorf("%s: fundingIntervalHour %q", ReasonBadValue, f.FundingInterval)
		}
	}
	if f.Turnover24h != "" {
		t.Turnover24h, errs[7] = num("turnover24h", f.Turnover24h)
	}
	if err := errors.Join(errs[:]...); err != nil {
		return t, err
	}
	if t.Mark < 0 || t.OpenInterest < 0 || t.OpenInterestUSD < 0 || t.Index < 0 || t.Turnover24h < 0 {
		return t, fmt.Errorf("%s: negative price or open interest", ReasonBadValue)
	}
	return t, nil
}

// ParseBybitTickers parses /v5/market/tickers?category=linear. It returns
// the tickers, the envelope time and the items it could not use.
func ParseBybitTickers(b []byte) ([]BybitTicker, int64, []Reject, error) {
	var res struct {
		Category string              `json:"category"`
		List     []BybitTickerFields `json:"list"`
	}
	ns, err := bybitEnvelope("tickers", b, &res)
	if err != nil {
		return nil, 0, nil, err
	}
	if res.Category != "" && res.Category != "linear" {
		return nil, 0, nil, malformed(VenueBybit, "tickers", fmt.Errorf("category %q, want linear", res.Category))
	}
	out := make([]BybitTicker, 0, len(res.List))
	var rej []Reject
	for i := range res.List {
		t, err := res.List[i].Ticker()
		if err != nil {
			rej = append(rej, Reject{VenueBybit, res.List[i].Symbol, err.Error()})
			continue
		}
		out = append(out, t)
	}
	return out, ns, rej, nil
}

// ParseBybitOpenInterest parses /v5/market/open-interest: result {symbol,
// category, list:[{openInterest, timestamp}], nextPageCursor}, newest first.
// It returns the points in ascending time, in contracts (no USD value).
func ParseBybitOpenInterest(b []byte) ([]OIPoint, []Reject, error) {
	var res struct {
		Symbol string `json:"symbol"`
		List   []struct {
			OI        string `json:"openInterest"`
			Timestamp string `json:"timestamp"`
		} `json:"list"`
	}
	if _, err := bybitEnvelope("open-interest", b, &res); err != nil {
		return nil, nil, err
	}
	if res.Symbol == "" {
		return nil, nil, malformed(VenueBybit, "open-interest", errors.New("no symbol"))
	}
	out := make([]OIPoint, 0, len(res.List))
	var rej []Reject
	for _, r := range res.List {
		oi, err1 := num("openInterest", r.OI)
		ns, err2 := msStrNs("timestamp", r.Timestamp)
		if err := errors.Join(err1, err2); err != nil || oi < 0 {
			rej = append(rej, Reject{VenueBybit, res.Symbol, fmt.Sprintf("%s: open interest %q at %q", ReasonBadValue, r.OI, r.Timestamp)})
			continue
		}
		out = append(out, OIPoint{VenueSymbol: res.Symbol, OpenInterest: oi, ObservedNs: ns})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ObservedNs < out[j].ObservedNs })
	return out, rej, nil
}

// ParseBybitAccountRatio parses /v5/market/account-ratio: result
// {list:[{symbol, buyRatio, sellRatio, timestamp}]}, newest first; buyRatio
// is the share of position holders long. Returned in ascending time.
func ParseBybitAccountRatio(b []byte) ([]LongShortPoint, []Reject, error) {
	var res struct {
		List []struct {
			Symbol    string `json:"symbol"`
			Buy       string `json:"buyRatio"`
			Sell      string `json:"sellRatio"`
			Timestamp string `json:"timestamp"`
		} `json:"list"`
	}
	if _, err := bybitEnvelope("account-ratio", b, &res); err != nil {
		return nil, nil, err
	}
	out := make([]LongShortPoint, 0, len(res.List))
	var rej []Reject
	for _, r := range res.List {
		var p LongShortPoint
		ms, err := msStrNs("timestamp", r.Timestamp)
		if err == nil {
			p, err = longShort(r.Buy, r.Sell, "", ms/1e6)
		}
		if err != nil || r.Symbol == "" {
			rej = append(rej, Reject{VenueBybit, r.Symbol, fmt.Sprintf("%s: account ratio of %q: %v", ReasonBadValue, r.Symbol, err)})
			continue
		}
		p.VenueSymbol = r.Symbol
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ObservedNs < out[j].ObservedNs })
	return out, rej, nil
}

// BybitInstrument is what instruments-info says of one perp.
type BybitInstrument struct {
	Status        string  // "Trading", "PreLaunch", "Delivering", "Closed", ...
	IntervalHours float64 // fundingInterval / 60; 0 when absent
}

// Delisted reports whether the status means the perp no longer trades.
func (i BybitInstrument) Delisted() bool {
	return i.Status == "Closed" || i.Status == "Delivering" || i.Status == "Settling"
}

// ParseBybitInstruments parses /v5/market/instruments-info?category=linear:
// result {category, list:[{symbol, contractType, status, fundingInterval
// (minutes), …}], nextPageCursor}. It returns the perps (contractType
// LinearPerpetual; dated LinearFutures are skipped) and the cursor of the
// next page ("" on the last).
func ParseBybitInstruments(b []byte) (map[string]BybitInstrument, string, []Reject, error) {
	var res struct {
		List []struct {
			Symbol          string   `json:"symbol"`
			ContractType    string   `json:"contractType"`
			Status          string   `json:"status"`
			FundingInterval *float64 `json:"fundingInterval"`
		} `json:"list"`
		Cursor string `json:"nextPageCursor"`
	}
	if _, err := bybitEnvelope("instruments-info", b, &res); err != nil {
		return nil, "", nil, err
	}
	out := make(map[string]BybitInstrument, len(res.List))
	var rej []Reject
	for _, r := range res.List {
		if r.ContractType != "" && r.ContractType != "LinearPerpetual" {
			continue
		}
		in := BybitInstrument{Status: r.Status}
		if r.FundingInterval != nil {
			in.IntervalHours = *r.FundingInterval / 60
			if !(in.IntervalHours > 0 && in.IntervalHours <= schemas.MaxFundingIntervalHours) {
				rej = append(rej, Reject{VenueBybit, r.Symbol, fmt.Sprintf("%s: fundingInterval %v of %q", ReasonBadValue, *r.FundingInterval, r.Symbol)})
				in.IntervalHours = 0
			}
		}
		if r.Symbol == "" || r.Status == "" {
			rej = append(rej, Reject{VenueBybit, r.Symbol, ReasonBadValue + ": instrument without symbol or status"})
			continue
		}
		out[r.Symbol] = in
	}
	return out, res.Cursor, rej, nil
}

// BybitInput is what one Bybit poll cycle read.
type BybitInput struct {
	ReadNs int64
	Source string
	// TimeNs is the tickers envelope's time: the time of every ticker.
	TimeNs      int64
	Tickers     []BybitTicker // nil when tickers failed
	Instruments map[string]BybitInstrument
	OIHist      map[string][]OIPoint
	Ratios      map[string]LongShortPoint
	Period      string
	// Symbols are the configured symbols (account ratio, history): one of
	// them missing from a successful tickers answer is reported delisted.
	Symbols []string
}

// BuildBybit turns one cycle into records: a snapshot per linear perp whose
// symbol maps (all of them, not only the configured ones), history points for
// the configured ones, and a delisted snapshot for a configured symbol the
// tickers no longer list or instruments-info reports closed. History points
// carry contracts only; they are valued at the poll's mark price (Bybit
// publishes no value history).
func BuildBybit(in BybitInput) ([]*schemas.PerpSnapshot, []Reject) {
	if in.Tickers == nil {
		return nil, nil
	}
	obs := in.TimeNs
	if obs == 0 {
		obs = in.ReadNs
	}
	out := make([]*schemas.PerpSnapshot, 0, len(in.Tickers)+8)
	var rej []Reject
	seen := make(map[string]bool, len(in.Tickers))
	for _, t := range in.Tickers {
		sym, class, ok := Normalize(VenueBybit, t.VenueSymbol)
		if !ok {
			continue // USDC perps (BTCPERP) and others quoted elsewhere: not covered
		}
		seen[t.VenueSymbol] = true
		s := &schemas.PerpSnapshot{
			Venue: VenueBybit, VenueSymbol: t.VenueSymbol, Symbol: sym, AssetClass: class,
			ObservedNs: obs, ReadNs: in.ReadNs, Source: in.Source,
		}
		inst, hasInst := in.Instruments[t.VenueSymbol]
		if hasInst && inst.Delisted() {
			s.Delisted = true
			out = append(out, s)
			continue
		}
		s.OpenInterest, s.OpenInterestUsd = t.OpenInterest, t.OpenInterestUSD
		s.MarkPrice, s.IndexPrice, s.FundingRate, s.NextFundingNs = t.Mark, t.Index, t.FundingRate, t.NextFundingNs
		s.DayVolumeUsd = t.Turnover24h
		switch {
		case t.IntervalHours > 0:
			s.FundingIntervalHours, s.FundingIntervalSource = t.IntervalHours, "venue"
		case hasInst && inst.IntervalHours > 0:
			s.FundingIntervalHours, s.FundingIntervalSource = inst.IntervalHours, "venue"
		default:
			s.FundingIntervalHours, s.FundingIntervalSource = BybitDefaultFundingHours, "default"
		}
		if r, ok := in.Ratios[t.VenueSymbol]; ok {
			s.LongShort = &schemas.LongShort{Kind: "account", LongShare: r.Long, ShortShare: r.Short, Ratio: r.Rate, Period: in.Period, ObservedNs: r.ObservedNs}
		}
		for _, h := range in.OIHist[t.VenueSymbol] {
			if h.ObservedNs >= obs {
				continue
			}
			p := &schemas.PerpSnapshot{
				Venue: VenueBybit, VenueSymbol: t.VenueSymbol, Symbol: sym, AssetClass: class, History: true,
				ObservedNs: h.ObservedNs, ReadNs: in.ReadNs, Source: in.Source,
				OpenInterest: h.OpenInterest, OpenInterestUsd: h.OpenInterest * t.Mark,
			}
			out = append(out, p)
		}
		out = append(out, s)
	}
	for _, vs := range in.Symbols {
		if seen[vs] {
			continue
		}
		sym, class, ok := Normalize(VenueBybit, vs)
		if !ok {
			rej = append(rej, Reject{VenueBybit, vs, ReasonUnknownSymbol + ": " + vs})
			continue
		}
		out = append(out, &schemas.PerpSnapshot{Venue: VenueBybit, VenueSymbol: vs, Symbol: sym, AssetClass: class,
			ObservedNs: obs, ReadNs: in.ReadNs, Source: in.Source, Delisted: true})
	}
	return out, rej
}

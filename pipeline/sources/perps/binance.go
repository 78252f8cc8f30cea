package perps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/marketintel/mi/schemas"
)

// Binance USDⓈ-M futures (https://fapi.binance.com). Endpoints read per poll:
//
//	GET /fapi/v1/premiumIndex                   every perp: mark, index, current funding rate, next funding
//	GET /fapi/v1/fundingInfo                    perps whose funding interval (or cap) Binance adjusted; others pay every 8 h
//	GET /futures/data/openInterestHist          per symbol, period=5m: open interest in contracts and USD (history: backfill)
//	GET /fapi/v1/openInterest                   per symbol, optional: current open interest in contracts
//	GET /futures/data/globalLongShortAccountRatio per symbol, period=5m: long and short share of accounts
//
// Binance answers errors as {"code":-1121,"msg":"Invalid symbol."}.

// BinanceDefaultFundingHours is the funding interval of a Binance perp that
// fundingInfo does not list (Binance: "funding fees are exchanged every 8
// hours" unless adjusted).
const BinanceDefaultFundingHours = 8

// OIPoint is one open-interest reading: contracts (base units) and, when the
// venue values it, USD (0 otherwise), at the venue's time.
type OIPoint struct {
	VenueSymbol     string
	OpenInterest    float64
	OpenInterestUSD float64
	ObservedNs      int64
}

// LongShortPoint is one long/short share reading of one perp.
type LongShortPoint struct {
	VenueSymbol       string
	Long, Short, Rate float64 // shares 0..1 and the published long/short ratio
	ObservedNs        int64
}

// BinancePremium is one perp of premiumIndex.
type BinancePremium struct {
	VenueSymbol   string
	Mark, Index   float64
	FundingRate   float64 // lastFundingRate: the rate of the running interval
	NextFundingNs int64
	ObservedNs    int64
}

// binanceError returns the venue error of an answer shaped
// {"code":…,"msg":…}, or nil.
func binanceError(endpoint string, b []byte) *ParseError {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	var e struct {
		Code *int64 `json:"code"`
		Msg  string `json:"msg"`
	}
	if json.Unmarshal(b, &e) != nil || e.Code == nil || *e.Code == 200 {
		return nil
	}
	return &ParseError{Reason: ReasonVenueError, Venue: VenueBinance, Endpoint: endpoint, Detail: fmt.Sprintf("code %d: %s", *e.Code, e.Msg)}
}

// decodeStrict decodes b into v and refuses trailing data.
func decodeStrict(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// ParseBinanceOpenInterestHist parses /futures/data/openInterestHist:
// [{symbol, sumOpenInterest, sumOpenInterestValue, CMCCirculatingSupply,
// timestamp}], returned in ascending time.
func ParseBinanceOpenInterestHist(b []byte) ([]OIPoint, []Reject, error) {
	const ep = "openInterestHist"
	if e := binanceError(ep, b); e != nil {
		return nil, nil, e
	}
	var rows []struct {
		Symbol    string `json:"symbol"`
		OI        string `json:"sumOpenInterest"`
		Value     string `json:"sumOpenInterestValue"`
		Timestamp int64  `json:"timestamp"`
	}
	if err := decodeStrict(b, &rows); err != nil {
		return nil, nil, malformed(VenueBinance, ep, err)
	}
	out := make([]OIPoint, 0, len(rows))
	var rej []Reject
	for _, r := range rows {
		oi, err1 := num("sumOpenInterest", r.OI)
		usd, err2 := num("sumOpenInterestValue", r.Value)
		ns, err3 := msNs("timestamp", r.Timestamp)
		if err := errors.Join(err1, err2, err3); err != nil || oi < 0 || usd < 0 || r.Symbol == "" {
			rej = append(rej, Reject{VenueBinance, r.Symbol, fmt.Sprintf("%s: open interest %q %q at %d", ReasonBadValue, r.OI, r.Value, r.Timestamp)})
			continue
		}
		out = append(out, OIPoint{VenueSymbol: r.Symbol, OpenInterest: oi, OpenInterestUSD: usd, ObservedNs: ns})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ObservedNs < out[j].ObservedNs })
	return out, rej, nil
}

// ParseBinanceOpenInterest parses /fapi/v1/openInterest: {openInterest,
// symbol, time}. The answer values nothing in USD.
func ParseBinanceOpenInterest(b []byte) (OIPoint, error) {
	const ep = "openInterest"
	if e := binanceError(ep, b); e != nil {
		return OIPoint{}, e
	}
	var r struct {
		OI     string `json:"openInterest"`
		Symbol string `json:"symbol"`
		Time   int64  `json:"time"`
	}
	if err := decodeStrict(b, &r); err != nil {
		return OIPoint{}, malformed(VenueBinance, ep, err)
	}
	oi, err1 := num("openInterest", r.OI)
	ns, err2 := msNs("time", r.Time)
	if err := errors.Join(err1, err2); err != nil || oi < 0 || r.Symbol == "" {
		return OIPoint{}, &ParseError{Reason: ReasonMalformedJSON, Venue: VenueBinance, Endpoint: ep, Detail: fmt.Sprintf("open interest %q of %q at %d", r.OI, r.Symbol, r.Time)}
	}
	return OIPoint{VenueSymbol: r.Symbol, OpenInterest: oi, ObservedNs: ns}, nil
}

// ParseBinancePremiumIndex parses /fapi/v1/premiumIndex: one object (with a
// symbol parameter) or an array of them (without): {symbol, markPrice,
// indexPrice, estimatedSettlePrice, lastFundingRate, interestRate,
// nextFundingTime, time}.
func ParseBinancePremiumIndex(b []byte) ([]BinancePremium, []Reject, error) {
	const ep = "premiumIndex"
	type row struct {
		Symbol      string `json:"symbol"`
		Mark        string `json:"markPrice"`
		Index       string `json:"indexPrice"`
		Funding     string `json:"lastFundingRate"`
		NextFunding int64  `json:"nextFundingTime"`
		Time        int64  `json:"time"`
	}
	var rows []row
	t := bytes.TrimSpace(b)
	if len(t) > 0 && t[0] == '{' {
		if e := binanceError(ep, t); e != nil {
			return nil, nil, e
		}
		var r row
		if err := decodeStrict(t, &r); err != nil {
			return nil, nil, malformed(VenueBinance, ep, err)
		}
		rows = []row{r}
	} else if err := decodeStrict(t, &rows); err != nil {
		return nil, nil, malformed(VenueBinance, ep, err)
	}
	out := make([]BinancePremium, 0, len(rows))
	var rej []Reject
	for _, r := range rows {
		mark, err1 := num("markPrice", r.Mark)
		index, err2 := num("indexPrice", r.Index)
		rate := 0.0
		var err3 error
		if r.Funding != "" { // delivery contracts have an empty lastFundingRate
			rate, err3 = num("lastFundingRate", r.Funding)
		}
		ns, err4 := msNs("time", r.Time)
		var next int64
		if r.NextFunding != 0 {
			next, _ = msNs("nextFundingTime", r.NextFunding)
		}
		if err := errors.Join(err1, err2, err3, err4); err != nil || r.Symbol == "" || mark < 0 || index < 0 {
			rej = append(rej, Reject{VenueBinance, r.Symbol, fmt.Sprintf("%s: premium index of %q: %v", ReasonBadValue, r.Symbol, err)})
			continue
		}
		out = append(out, BinancePremium{VenueSymbol: r.Symbol, Mark: mark, Index: index, FundingRate: rate, NextFundingNs: next, ObservedNs: ns})
	}
	return out, rej, nil
}

// ParseBinanceFundingInfo parses /fapi/v1/fundingInfo: [{symbol,
// adjustedFundingRateCap, adjustedFundingRateFloor, fundingIntervalHours,
// disclaimer}], the perps whose funding Binance adjusted. It returns the
// funding interval in hours per symbol.
func ParseBinanceFundingInfo(b []byte) (map[string]float64, []Reject, error) {
	const ep = "fundingInfo"
	if e := binanceError(ep, b); e != nil {
		return nil, nil, e
	}
	var rows []struct {
		Symbol string   `json:"symbol"`
		Hours  *float64 `json:"fundingIntervalHours"`
	}
	if err := decodeStrict(b, &rows); err != nil {
		return nil, nil, malformed(VenueBinance, ep, err)
	}
	out := make(map[string]float64, len(rows))
	var rej []Reject
	for _, r := range rows {
		if r.Hours == nil || !(*r.Hours > 0 && *r.Hours <= schemas.MaxFundingIntervalHours) || r.Symbol == "" {
			rej = append(rej, Reject{VenueBinance, r.Symbol, fmt.Sprintf("%s: fundingIntervalHours of %q", ReasonBadValue, r.Symbol)})
			continue
		}
		out[r.Symbol] = *r.Hours
	}
	return out, rej, nil
}

// ParseBinanceLongShort parses /futures/data/globalLongShortAccountRatio (and
// topLongShortAccountRatio, same shape): [{symbol, longAccount,
// longShortRatio, shortAccount, timestamp}], ascending time.
func ParseBinanceLongShort(b []byte) ([]LongShortPoint, []Reject, error) {
	const ep = "globalLongShortAccountRatio"
	if e := binanceError(ep, b); e != nil {
		return nil, nil, e
	}
	var rows []struct {
		Symbol    string `json:"symbol"`
		Long      string `json:"longAccount"`
		Short     string `json:"shortAccount"`
		Ratio     string `json:"longShortRatio"`
		Timestamp int64  `json:"timestamp"`
	}
	if err := decodeStrict(b, &rows); err != nil {
		return nil, nil, malformed(VenueBinance, ep, err)
	}
	out := make([]LongShortPoint, 0, len(rows))
	var rej []Reject
	for _, r := range rows {
		p, err := longShort(r.Long, r.Short, r.Ratio, r.Timestamp)
		if err != nil || r.Symbol == "" {
			rej = append(rej, Reject{VenueBinance, r.Symbol, fmt.Sprintf("%s: long/short of %q: %v", ReasonBadValue, r.Symbol, err)})
			continue
		}
		p.VenueSymbol = r.Symbol
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ObservedNs < out[j].ObservedNs })
	return out, rej, nil
}

// longShort checks one share pair: both in 0..1, summing to 1 within the
// venues' 4-decimal rounding.
func longShort(long, short, ratio string, ms int64) (LongShortPoint, error) {
	l, err1 := num("long", long)
	s, err2 := num("short", short)
	ns, err3 := msNs("timestamp", ms)
	r := 0.0
	var err4 error
	if ratio != "" {
		r, err4 = num("ratio", ratio)
	} else if s > 0 {
		r = l / s
	}
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return LongShortPoint{}, err
	}
	if l < 0 || s < 0 || l > 1 || s > 1 || l+s < 0.98 || l+s > 1.02 {
		return LongShortPoint{}, fmt.Errorf("shares %v + %v do not sum to 1", l, s)
	}
	return LongShortPoint{Long: l, Short: s, Rate: r, ObservedNs: ns}, nil
}

// BinanceInput is what one Binance poll cycle read. Maps are keyed by venue
// symbol; a symbol missing from a map means that endpoint gave nothing for it
// (it failed, or was not asked).
type BinanceInput struct {
	ReadNs    int64
	Source    string
	Premium   map[string]BinancePremium
	Intervals map[string]float64 // fundingInfo; nil when it failed (every symbol: the 8 h default)
	OIHist    map[string][]OIPoint
	OICurrent map[string]OIPoint
	Ratios    map[string]LongShortPoint // the newest globalLongShortAccountRatio point
	// Period is the period the ratio and history endpoints were asked for
	// ("5m").
	Period string
}

// BuildBinance turns one cycle into records for the configured symbols: for
// each, one snapshot (the newest open interest, the premium index, the
// funding interval, the account shares) and one history point per older
// open-interest reading. A symbol missing from premiumIndex (which lists
// every trading perp) is reported delisted. A symbol without any open
// interest reading yields no snapshot (its endpoints failed: the poller
// reports that). Symbols that do not map are rejected.
func BuildBinance(in BinanceInput, symbols []string) ([]*schemas.PerpSnapshot, []Reject) {
	var out []*schemas.PerpSnapshot
	var rej []Reject
	for _, vs := range symbols {
		sym, class, ok := Normalize(VenueBinance, vs)
		if !ok {
			rej = append(rej, Reject{VenueBinance, vs, ReasonUnknownSymbol + ": " + vs})
			continue
		}
		base := func() *schemas.PerpSnapshot {
			return &schemas.PerpSnapshot{Venue: VenueBinance, VenueSymbol: vs, Symbol: sym, AssetClass: class, ReadNs: in.ReadNs, Source: in.Source}
		}
		prem, listed := in.Premium[vs]
		if in.Premium != nil && !listed {
			s := base()
			s.ObservedNs, s.Delisted = in.ReadNs, true
			out = append(out, s)
			continue
		}
		hist := in.OIHist[vs]
		cur, hasCur := in.OICurrent[vs]
		var latest OIPoint
		switch {
		case hasCur && (len(hist) == 0 || cur.ObservedNs > hist[len(hist)-1].ObservedNs):
			latest = cur
			if prem.Mark > 0 {
				latest.OpenInterestUSD = cur.OpenInterest * prem.Mark
			} else if len(hist) > 0 {
				// No mark price: value the contracts at the last
				// USD/contract ratio Binance published.
				h := hist[len(hist)-1]
				if h.OpenInterest > 0 {
					latest.OpenInterestUSD = cur.OpenInterest * h.OpenInterestUSD / h.OpenInterest
				}
			}
		case len(hist) > 0:
			latest, hist = hist[len(hist)-1], hist[:len(hist)-1]
		default:
			continue
		}
		for _, h := range hist {
			p := base()
			p.History, p.ObservedNs, p.OpenInterest, p.OpenInterestUsd = true, h.ObservedNs, h.OpenInterest, h.OpenInterestUSD
			out = append(out, p)
		}
		if !listed {
			continue // premiumIndex failed: no funding, no snapshot
		}
		s := base()
		s.OpenInterest, s.OpenInterestUsd = latest.OpenInterest, latest.OpenInterestUSD
		s.ObservedNs = min(latest.ObservedNs, prem.ObservedNs)
		s.MarkPrice, s.IndexPrice, s.FundingRate, s.NextFundingNs = prem.Mark, prem.Index, prem.FundingRate, prem.NextFundingNs
		s.FundingIntervalHours, s.FundingIntervalSource = BinanceDefaultFundingHours, "default"
		if h, ok := in.Intervals[vs]; ok {
			s.FundingIntervalHours, s.FundingIntervalSource = h, "venue"
		}
		if r, ok := in.Ratios[vs]; ok {
			s.LongShort = &schemas.LongShort{Kind: "global_account", LongShare: r.Long, ShortShare: r.Short, Ratio: r.Rate, Period: in.Period, ObservedNs: r.ObservedNs}
		}
		out = append(out, s)
	}
	return out, rej
}

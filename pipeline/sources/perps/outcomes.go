package perps

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/marketintel/mi/schemas"
)

// Hyperliquid HIP-4 outcome markets: fully collateralized binary contracts
// priced 0.001–0.999 (the price is the implied probability), live on
// Hyperliquid mainnet since 2 May 2026 (docs/positioning.md#prediction-markets
// gives the sources). Read every 15 minutes:
//
//	{"type":"outcomeMeta"}    {outcomes:[{outcome, name, description, sideSpecs:[{name}]}],
//	                           questions:[{question, name, description, fallbackOutcome, namedOutcomes, settledNamedOutcomes}]}
//	{"type":"allMids"}        {coin: mid} for every coin, outcome sides included as "#<10·outcome+side>"
//	{"type":"candleSnapshot","req":{"coin":"#<enc>","interval":"1h","startTime":…,"endTime":…}}
//	                          per outcome side: the hourly candles of the last 24 h, for the 24 h volume
//
// No recorded mainnet answer of outcomeMeta exists in any public repository
// we could find: its parser is built from the documented shape and tested on
// hand-made input (testdata/outcomeMeta_handmade.json says so).

// Outcome is one HIP-4 outcome market.
type Outcome struct {
	ID          int64
	Name        string
	Description string
	Sides       []string // side names, side 0 first ("Yes", "No")
}

// Question is a categorical question grouping outcomes.
type Question struct {
	ID           int64
	Name         string
	Description  string
	Fallback     int64
	Named        []int64
	SettledNamed []int64
}

// ParseHyperliquidOutcomeMeta parses an outcomeMeta answer.
func ParseHyperliquidOutcomeMeta(b []byte) ([]Outcome, []Question, []Reject, error) {
	const ep = "outcomeMeta"
	var res struct {
		Outcomes []struct {
			Outcome     *int64 `json:"outcome"`
			Name        string `json:"name"`
			Description string `json:"description"`
			SideSpecs   []struct {
				Name string `json:"name"`
			} `json:"sideSpecs"`
		} `json:"outcomes"`
		Questions []struct {
			Question     *int64  `json:"question"`
			Name         string  `json:"name"`
			Description  string  `json:"description"`
			Fallback     *int64  `json:"fallbackOutcome"`
			Named        []int64 `json:"namedOutcomes"`
			SettledNamed []int64 `json:"settledNamedOutcomes"`
		} `json:"questions"`
	}
	if err := decodeStrict(b, &res); err != nil {
		return nil, nil, nil, malformed(VenueHyperliquid, ep, err)
	}
	if res.Outcomes == nil {
		return nil, nil, nil, malformed(VenueHyperliquid, ep, errors.New("no outcomes list"))
	}
	var rej []Reject
	outs := make([]Outcome, 0, len(res.Outcomes))
	for _, o := range res.Outcomes {
		if o.Outcome == nil || *o.Outcome < 0 || *o.Outcome > 1e15 || len(o.SideSpecs) != 2 {
			rej = append(rej, Reject{VenueHyperliquid, o.Name, ReasonBadValue + ": outcome without id or with other than two sides"})
			continue
		}
		oc := Outcome{ID: *o.Outcome, Name: o.Name, Description: o.Description}
		for _, s := range o.SideSpecs {
			oc.Sides = append(oc.Sides, s.Name)
		}
		outs = append(outs, oc)
	}
	qs := make([]Question, 0, len(res.Questions))
	for _, q := range res.Questions {
		if q.Question == nil {
			rej = append(rej, Reject{VenueHyperliquid, q.Name, ReasonBadValue + ": question without id"})
			continue
		}
		qq := Question{ID: *q.Question, Name: q.Name, Description: q.Description, Named: q.Named, SettledNamed: q.SettledNamed, Fallback: -1}
		if q.Fallback != nil {
			qq.Fallback = *q.Fallback
		}
		qs = append(qs, qq)
	}
	return outs, qs, rej, nil
}

// ParseHyperliquidAllMids parses an allMids answer: {coin: "price"}.
func ParseHyperliquidAllMids(b []byte) (map[string]float64, []Reject, error) {
	var raw map[string]string
	if err := decodeStrict(b, &raw); err != nil {
		return nil, nil, malformed(VenueHyperliquid, "allMids", err)
	}
	if raw == nil {
		return nil, nil, malformed(VenueHyperliquid, "allMids", errors.New("null"))
	}
	out := make(map[string]float64, len(raw))
	var rej []Reject
	for c, s := range raw {
		v, err := num("mid", s)
		if err != nil || v < 0 {
			rej = append(rej, Reject{VenueHyperliquid, c, fmt.Sprintf("%s: mid %q of %q", ReasonBadValue, s, c)})
			continue
		}
		out[c] = v
	}
	return out, rej, nil
}

// HLCandle is one candle of candleSnapshot.
type HLCandle struct {
	StartNs           int64
	Open, Close, High float64
	Low, Volume       float64 // Volume in contracts (coins)
	Trades            int64
}

// ParseHyperliquidCandles parses a candleSnapshot answer: [{t, T, s, i, o,
// c, h, l, v, n}], ascending time.
func ParseHyperliquidCandles(b []byte) ([]HLCandle, []Reject, error) {
	var rows []struct {
		T             int64  `json:"t"`
		End           int64  `json:"T"` // named so that "T" never lands in t (encoding/json folds case)
		S             string `json:"s"`
		O, C, H, L, V string
		N             int64 `json:"n"`
	}
	if err := decodeStrict(b, &rows); err != nil {
		return nil, nil, malformed(VenueHyperliquid, "candleSnapshot", err)
	}
	out := make([]HLCandle, 0, len(rows))
	var rej []Reject
	for _, r := range rows {
		var c HLCandle
		var errs [6]error
		c.StartNs, errs[0] = msNs("t", r.T)
		c.Open, errs[1] = num("o", r.O)
		c.Close, errs[2] = num("c", r.C)
		c.High, errs[3] = num("h", r.H)
		c.Low, errs[4] = num("l", r.L)
		c.Volume, errs[5] = num("v", r.V)
		c.Trades = r.N
		if err := errors.Join(errs[:]...); err != nil || c.Volume < 0 || c.Close < 0 {
			rej = append(rej, Reject{VenueHyperliquid, r.S, fmt.Sprintf("%s: candle at %d", ReasonBadValue, r.T)})
			continue
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartNs < out[j].StartNs })
	return out, rej, nil
}

// CandleVolumeUSD is the notional of the candles that start within the 24 h
// before atNs: Σ volume × close (an outcome contract pays 1 USDH at most, so
// its notional is contracts × price).
func CandleVolumeUSD(cs []HLCandle, atNs int64) float64 {
	const day = int64(24 * time.Hour)
	v := 0.0
	for _, c := range cs {
		if c.StartNs > atNs-day && c.StartNs <= atNs {
			v += c.Volume * c.Close
		}
	}
	return v
}

// OutcomeCoin is the coin of one side of an outcome in allMids, candles and
// trades: "#" followed by 10 × outcome + side.
func OutcomeCoin(outcome int64, side int) string {
	return "#" + strconv.FormatInt(10*outcome+int64(side), 10)
}

// OutcomeInput is what one outcome poll read.
type OutcomeInput struct {
	ReadNs     int64
	ObservedNs int64 // allMids' Date header; 0 = the read time
	Source     string
	Outcomes   []Outcome
	Questions  []Question
	Mids       map[string]float64
	// VolumeUSD is the 24 h notional per side coin (CandleVolumeUSD); a
	// coin missing from it counts 0.
	VolumeUSD map[string]float64
}

// Prediction market categories.
const (
	CategoryCryptoPrice = "crypto_price" // class:priceBinary on a crypto underlying
	CategoryPrice       = "price"        // class:priceBinary on another underlying
	CategoryEvent       = "event"        // every other outcome (sports, macro, culture, …)
)

// BuildOutcomeQuotes turns one poll into one quote per live outcome whose
// side-0 coin has a mid price: the option is side 0 (for a binary Yes/No
// market, "Yes"; for a named outcome of a categorical question, the
// outcome's name), its probability the side-0 mid, its volume the notional of
// both sides. Outcomes a question lists as settled are skipped.
func BuildOutcomeQuotes(in OutcomeInput) []*schemas.PredictionQuote {
	obs := in.ObservedNs
	if obs == 0 {
		obs = in.ReadNs
	}
	inQuestion := map[int64]*Question{}
	for i := range in.Questions {
		q := &in.Questions[i]
		for _, o := range q.Named {
			inQuestion[o] = q
		}
		if q.Fallback >= 0 {
			inQuestion[q.Fallback] = q
		}
	}
	settled := settledOutcomes(in.Questions)
	out := make([]*schemas.PredictionQuote, 0, len(in.Outcomes))
	for _, o := range in.Outcomes {
		if settled[o.ID] {
			continue
		}
		coin := OutcomeCoin(o.ID, 0)
		p, ok := in.Mids[coin]
		if !ok || p > 1 {
			continue
		}
		q := &schemas.PredictionQuote{
			Venue: VenueHyperliquid, MarketId: strconv.FormatInt(o.ID, 10), Probability: p,
			DayVolumeUsd: in.VolumeUSD[coin] + in.VolumeUSD[OutcomeCoin(o.ID, 1)],
			ObservedNs:   obs, ReadNs: in.ReadNs, Coin: coin, Source: in.Source, Category: CategoryEvent,
		}
		kv := parseOutcomeDescription(o.Description)
		switch {
		case inQuestion[o.ID] != nil:
			qq := inQuestion[o.ID]
			q.Question, q.Option = qq.Name, o.Name
			if qq.Fallback == o.ID && o.Name == "" {
				q.Option = "Other"
			}
		case kv["class"] == "priceBinary" && kv["underlying"] != "":
			q.Underlying = kv["underlying"]
			q.Category = CategoryPrice
			if sym, class, ok := Normalize(VenueHyperliquid, q.Underlying); ok && class != "us_equity" && sym != "" {
				q.Category = CategoryCryptoPrice
			}
			q.Question = fmt.Sprintf("Is %s above %s at %s?", q.Underlying, kv["targetPrice"], expiryText(kv["expiry"]))
			q.Option = o.Sides[0]
		default:
			q.Question, q.Option = o.Name, o.Sides[0]
		}
		if t, ok := parseExpiry(kv["expiry"]); ok {
			q.ExpiryNs = t.UnixNano()
		}
		if q.Question == "" {
			q.Question = "outcome " + q.MarketId
		}
		out = append(out, q)
	}
	return out
}

// settledOutcomes returns the outcomes the questions list as settled.
func settledOutcomes(qs []Question) map[int64]bool {
	settled := map[int64]bool{}
	for _, q := range qs {
		for _, o := range q.SettledNamed {
			settled[o] = true
		}
	}
	return settled
}

// parseOutcomeDescription reads a machine description
// "class:priceBinary|underlying:BTC|expiry:20260504-0600|targetPrice:78213|period:1d"
// into its keys; free text gives an empty map.
func parseOutcomeDescription(d string) map[string]string {
	if !strings.Contains(d, "class:") {
		return nil
	}
	kv := map[string]string{}
	for _, part := range strings.Split(d, "|") {
		if k, v, ok := strings.Cut(part, ":"); ok {
			kv[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return kv
}

// parseExpiry reads "20260504-0600" (UTC).
func parseExpiry(s string) (time.Time, bool) {
	t, err := time.Parse("20060102-1504", s)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

func expiryText(s string) string {
	if t, ok := parseExpiry(s); ok {
		return t.Format("2006-01-02 15:04 UTC")
	}
	if s == "" {
		return "expiry"
	}
	return s
}

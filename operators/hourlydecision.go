package operators

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/marketintel/mi/operators/decision"
	"github.com/marketintel/mi/schemas"
)

// The hourly decision (decision_change, spec §6): docs/decisions.md
// ("Hourly decision") states the rule, docs/alerts.md the event.
const (
	// DecisionWindow is the document window the hourly decision's flow
	// checks read: the flow window of a pre-trade check over DecisionHorizon.
	DecisionWindow = "15m"
	// DecisionHorizon is the pre-trade window the hourly decision is: its
	// volatility check reads the 60 one-minute bars of the hour.
	DecisionHorizon = "1h"
	// decisionBars is the number of 1m bars of DecisionHorizon.
	decisionBars = 60
)

// Decision actions of decision_change.
const (
	ActionBuy  = "buy"
	ActionHold = "hold"
	ActionSell = "sell"
)

// DecisionAction maps the assessments of one hour on both sides to an
// action: buy when the buy side is FAVORABLE, sell when the sell side is,
// hold otherwise (CAUTION or UNFAVORABLE on both sides). Both sides cannot
// be FAVORABLE: a FAVORABLE verdict needs order_flow PASS, that is a side
// pressure of at least decision.FlowPass (55%), and the two sides'
// pressures sum to 100. It panics on two FAVORABLE sides (a broken
// invariant of package decision).
func DecisionAction(buy, sell decision.Assessment) string {
	b, s := buy.Verdict == decision.Favorable, sell.Verdict == decision.Favorable
	switch {
	case b && s:
		panic("BUG: both sides of an hourly decision are FAVORABLE")
	case b:
		return ActionBuy
	case s:
		return ActionSell
	}
	return ActionHold
}

// DecisionSide is one side's verdict and score in a decision_change event.
type DecisionSide struct {
	Verdict decision.Verdict `json:"verdict"`
	Score   int              `json:"score"`
}

// DecisionChangeData is the data of a decision_change event.
type DecisionChangeData struct {
	// From and To are buy, hold or sell.
	From string `json:"from"`
	To   string `json:"to"`
	// Hour is the UTC hour the new decision covers (its start); the event
	// occurs at its end.
	Hour time.Time `json:"hour"`
	// Signal to DocumentID describe the last 15m document of the hour, the
	// one the flow checks read.
	Signal          string  `json:"signal"`
	SignalStrength  string  `json:"signalStrength"`
	ConfidenceScore float64 `json:"confidenceScore"`
	MomentumScore   float64 `json:"momentumScore"`
	BuyPressure     float64 `json:"buyPressure"`
	Price           float64 `json:"price"`
	DocumentID      string  `json:"documentId"`
	EventType       string  `json:"eventType"`
	TradeCount      int64   `json:"tradeCount"`
	// Window is the pre-trade window of the decision (1h), FlowWindow the
	// window of the document its flow checks read (15m).
	Window     string `json:"window"`
	FlowWindow string `json:"flowWindow"`
	// Side is the side whose assessment drove the change: To's side for a
	// buy or a sell, From's side for a hold (why the buy or sell ended).
	// Verdict, Score, KnownWeight, Checks and Reasons are that assessment.
	Side        decision.Side    `json:"side"`
	Verdict     decision.Verdict `json:"verdict"`
	Score       int              `json:"score"`
	KnownWeight int              `json:"knownWeight"`
	Checks      []decision.Check `json:"checks"`
	Reasons     []string         `json:"reasons"`
	// Buy and Sell are both sides' verdicts and scores.
	Buy  DecisionSide `json:"buy"`
	Sell DecisionSide `json:"sell"`
	// OnchainMinutes is the number of minutes of the hour with on-chain
	// (EVM or Solana DEX) trades.
	OnchainMinutes int `json:"onchainMinutes"`
}

// HourlyDecision makes the hourly decision of every symbol with live
// on-chain trading in one input partition and emits decision_change when
// a symbol's action changes. It is a pure operator: no I/O, no clock; time
// comes from the documents and candles, and the same records in the same
// order give the same events with the same ids. It is not safe for
// concurrent use.
//
// Per symbol and UTC hour it keeps the last document of DecisionWindow and
// the 1m candles of every venue (for each minute the close of the leading
// venue, Leads, as the candle view does). The hour is decided when
// the partition's document clock enters a later hour (Flush): the two sides
// are assessed by decision.Assess — the pre-trade check over the window 1h
// with the sources this path has — and DecisionAction maps them to an
// action. An hour is decided only for a symbol with an on-chain candle in
// it and a document of DecisionWindow in it; when the action differs from
// the symbol's previous decided hour's, decision_change fires at the end of
// the hour. A symbol's first decided hour fires nothing.
type HourlyDecision struct {
	emit      func(AlertEvent)
	syms      map[string]*decisionSym
	dirty     map[string]bool
	clockHour int64 // the hour (start, ns) of the newest document pushed

	// Scratch.
	names  []string
	closes []float64
}

// decisionSym is the state of one symbol (one state key).
type decisionSym struct {
	// Action is the decision of the last decided hour; "" = none yet.
	Action string `json:"action,omitempty"`
	// Hour is the start (ns) of the open hour; Flow its last document of
	// DecisionWindow, nil when none (nothing to decide).
	Hour int64         `json:"hour,omitempty"`
	Flow *decisionFlow `json:"flow,omitempty"`
	// Minutes are the 1m minutes with trades from the open hour on (about
	// 60), oldest first; Carry is the latest older one.
	Minutes []decisionMinute `json:"minutes,omitempty"`
	Carry   *decisionMinute  `json:"carry,omitempty"`
}

// decisionFlow is what the decision keeps of a document.
type decisionFlow struct {
	BuyPressure    float64 `json:"bp"`
	MomentumScore  float64 `json:"ms"`
	TradeCount     int64   `json:"tc"`
	EventType      string  `json:"ev"`
	Signal         string  `json:"sig"`
	SignalStrength string  `json:"ss"`
	Confidence     float64 `json:"cf"`
	Price          float64 `json:"px"`
	DocumentID     string  `json:"id"`
}

// decisionMinute is one minute of a symbol across venues: the close and
// USD volume of its leading venue, and whether an on-chain venue traded.
type decisionMinute struct {
	Start   int64   `json:"s"`
	Close   float64 `json:"c"`
	USD     float64 `json:"u"`
	Venue   string  `json:"v"`
	Onchain bool    `json:"o,omitempty"`
}

// fold folds a candle of the same minute into m.
func (m *decisionMinute) fold(c *schemas.Candle) {
	m.Onchain = m.Onchain || isOnchain(c.VenueKind)
	if Leads(c.VolumeUsd, c.Venue, m.USD, m.Venue) {
		m.Close, m.USD, m.Venue = c.Close, c.VolumeUsd, c.Venue
	}
}

func isOnchain(k schemas.VenueKind) bool {
	return k == schemas.VenueKind_VENUE_KIND_ONCHAIN_DEX || k == schemas.VenueKind_VENUE_KIND_SOLANA_DEX
}

// NewHourlyDecision returns an operator with empty state that passes every
// event to emit, synchronously, from PushDocument or Flush. emit must not
// call back into the operator.
func NewHourlyDecision(emit func(AlertEvent)) *HourlyDecision {
	if emit == nil {
		panic("BUG: NewHourlyDecision without an emit function")
	}
	return &HourlyDecision{emit: emit, syms: map[string]*decisionSym{}, dirty: map[string]bool{}}
}

// sym returns the state of symbol s for a change: it is marked dirty.
func (h *HourlyDecision) sym(s string) *decisionSym {
	st := h.syms[s]
	if st == nil {
		st = &decisionSym{}
		h.syms[s] = st
	}
	h.dirty[s] = true
	return st
}

func hourOf(ns int64) int64 { return floorDiv(ns, int64(time.Hour)) * int64(time.Hour) }

// PushCandle folds a closed 1m candle into its symbol's minutes; other
// intervals are ignored. A candle of a minute before the symbol's kept
// minutes only updates the carried close, when it is the newest such.
// The candle is not retained (Emit contract); its strings are.
func (h *HourlyDecision) PushCandle(c *schemas.Candle) {
	if c.Symbol == "" || c.IntervalNs != candleNs || !(c.Close > 0) || math.IsInf(c.Close, 0) {
		return
	}
	st := h.sym(c.Symbol)
	// Minutes before every hour still to decide fold into the carry: no
	// hour before the document clock's is decided again, nor one before
	// the candle's (the clock is ahead of every closed candle; the
	// minimum keeps the open hour's minutes even if it were not).
	keep := min(hourOf(c.StartNs), h.clockHour)
	if st.Flow != nil {
		keep = min(keep, st.Hour)
	}
	if len(st.Minutes) > 0 && st.Minutes[0].Start < keep {
		n := 0
		for n < len(st.Minutes) && st.Minutes[n].Start < keep {
			n++
		}
		last := st.Minutes[n-1]
		if st.Carry == nil || last.Start > st.Carry.Start {
			st.Carry = &last
		}
		st.Minutes = slices.Delete(st.Minutes, 0, n)
	}
	if len(st.Minutes) == 0 || c.StartNs < st.Minutes[0].Start {
		if st.Carry != nil && c.StartNs <= st.Carry.Start {
			if c.StartNs == st.Carry.Start {
				st.Carry.fold(c)
			}
			return // older than the carried minute: nothing reads it
		}
	}
	i, found := slices.BinarySearchFunc(st.Minutes, c.StartNs, func(m decisionMinute, s int64) int {
		return cmpInt64(m.Start, s)
	})
	if found {
		st.Minutes[i].fold(c)
		return
	}
	st.Minutes = slices.Insert(st.Minutes, i, decisionMinute{Start: c.StartNs, Close: c.Close, USD: c.VolumeUsd,
		Venue: c.Venue, Onchain: isOnchain(c.VenueKind)})
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// PushDocument moves the document clock to d's time (Flush) and, for a
// document of DecisionWindow, makes it the last document of its symbol's
// hour. Documents of other windows only move the clock. A document older
// than its symbol's open hour is ignored. d is not retained; its strings
// are.
func (h *HourlyDecision) PushDocument(d *schemas.IntelligenceDocument) {
	if d.TimestampNs <= 0 {
		return
	}
	h.Flush(d.TimestampNs)
	if d.Symbol == "" || d.Window != DecisionWindow {
		return
	}
	hour := hourOf(d.TimestampNs)
	if st := h.syms[d.Symbol]; st != nil && hour < st.Hour {
		return
	}
	st := h.sym(d.Symbol)
	st.Hour = hour
	if st.Flow == nil {
		st.Flow = new(decisionFlow) // reused for every document of the hour
	}
	*st.Flow = decisionFlow{BuyPressure: finiteOr(d.BuyPressure, 50), MomentumScore: finiteOr(d.MomentumScore, 50),
		TradeCount: d.TradeCount, EventType: d.EventType, Signal: d.Signal, SignalStrength: d.SignalStrength,
		Confidence: finiteOr(d.ConfidenceScore, 0), Price: finiteOr(d.Price, 0), DocumentID: d.Id}
}

// finiteOr returns v, or or when v is NaN or infinite.
func finiteOr(v, or float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return or
	}
	return v
}

// Flush decides the open hour of every symbol that ended at or before
// atNs, in symbol order, emitting the decision_change events. PushDocument
// calls it with each document's time; the work is done once per hour of
// the clock.
func (h *HourlyDecision) Flush(atNs int64) {
	hour := hourOf(atNs)
	if hour <= h.clockHour {
		return
	}
	h.clockHour = hour
	h.names = h.names[:0]
	for s, st := range h.syms {
		if st.Flow != nil && st.Hour+int64(time.Hour) <= atNs {
			h.names = append(h.names, s)
		}
	}
	slices.Sort(h.names)
	for _, s := range h.names {
		h.decide(s, h.sym(s))
	}
}

// decide decides the open hour of st and clears it.
func (h *HourlyDecision) decide(s string, st *decisionSym) {
	f := st.Flow
	st.Flow = nil
	// The bars of the hour: each carries the close of the latest minute
	// with trades up to it (the candle view's Bars).
	var carry float64
	has := false
	if st.Carry != nil && st.Carry.Start < st.Hour {
		carry, has = st.Carry.Close, true
	}
	end := st.Hour + int64(time.Hour)
	onchain := 0
	h.closes = h.closes[:0]
	i := 0
	for bar := range decisionBars {
		m := st.Hour + int64(bar)*candleNs
		for ; i < len(st.Minutes) && st.Minutes[i].Start <= m; i++ {
			carry, has = st.Minutes[i].Close, true
			if st.Minutes[i].Start == m && st.Minutes[i].Onchain {
				onchain++
			}
		}
		if has {
			h.closes = append(h.closes, carry)
		}
	}
	if onchain == 0 {
		return // no live on-chain trading in the hour: not decided
	}
	in := decision.Inputs{
		Flow: &decision.Flow{BuyPressure: f.BuyPressure, MomentumScore: f.MomentumScore, TradeCount: f.TradeCount, EventType: f.EventType},
	}
	if len(h.closes) > 0 {
		in.Volatility = &decision.Volatility{Closes: h.closes, BarMinutes: 1}
	}
	in.Side = decision.Buy
	buy := decision.Assess(in)
	in.Side = decision.Sell
	sell := decision.Assess(in)
	offPath(buy.Checks)
	offPath(sell.Checks)
	to := DecisionAction(buy, sell)
	from := st.Action
	st.Action = to
	if from == "" || from == to {
		return
	}
	side, a := decision.Buy, buy
	if to == ActionSell || (to == ActionHold && from == ActionSell) {
		side, a = decision.Sell, sell
	}
	data := DecisionChangeData{
		From: from, To: to, Hour: time.Unix(0, st.Hour).UTC(),
		Signal: f.Signal, SignalStrength: f.SignalStrength, ConfidenceScore: f.Confidence, MomentumScore: f.MomentumScore,
		BuyPressure: f.BuyPressure, Price: f.Price, DocumentID: f.DocumentID, EventType: f.EventType, TradeCount: f.TradeCount,
		Window: DecisionHorizon, FlowWindow: DecisionWindow,
		Side: side, Verdict: a.Verdict, Score: a.Score, KnownWeight: a.KnownWeight, Checks: a.Checks, Reasons: a.Reasons,
		Buy: DecisionSide{buy.Verdict, buy.Score}, Sell: DecisionSide{sell.Verdict, sell.Score},
		OnchainMinutes: onchain,
	}
	h.emit(newAlertEvent(AlertDecisionChange, s, end, from+">"+to, data))
}

// offPathDetail says why the checks whose source the process path does not
// read are UNKNOWN in an hourly decision.
var offPathDetail = map[string]string{
	decision.CheckRegime:   "the market regime spans the symbols of every partition; the hourly decision reads one partition",
	decision.CheckNews:     "news and filings flow on mi.news.v1, which the hourly decision does not read",
	decision.CheckSlippage: "pool states flow on mi.pool-events.v1, which the hourly decision does not read",
}

// offPath replaces the detail of the UNKNOWN checks of offPathDetail.
func offPath(checks []decision.Check) {
	for i := range checks {
		if d, ok := offPathDetail[checks[i].Name]; ok && checks[i].Result == decision.Unknown {
			checks[i].Detail = d
		}
	}
}

// DirtySymbols returns, sorted, the symbols whose state changed since the
// last ClearDirty.
func (h *HourlyDecision) DirtySymbols() []string {
	out := make([]string, 0, len(h.dirty))
	for s := range h.dirty {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// ClearDirty forgets which symbols changed; call it once their state is
// written.
func (h *HourlyDecision) ClearDirty() { clear(h.dirty) }

// AppendSymbolState appends the state of symbol s (deterministic JSON) to
// b, for a checkpoint.
func (h *HourlyDecision) AppendSymbolState(b []byte, s string) []byte {
	st := h.syms[s]
	if st == nil {
		st = &decisionSym{}
	}
	v, err := json.Marshal(st)
	if err != nil {
		panic("BUG: cannot marshal hourly decision state: " + err.Error())
	}
	return append(b, v...)
}

// RestoreSymbolState replaces the state of symbol s with one
// AppendSymbolState returned. On error the state is left as it was. The
// document clock is not state: every open hour is the hour of the clock
// when the state was written, so the next document decides exactly the
// hours the uninterrupted operator would have.
func (h *HourlyDecision) RestoreSymbolState(s string, data []byte) error {
	var st decisionSym
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("cannot restore hourly decision state of %q: %w", s, err)
	}
	if !slices.IsSortedFunc(st.Minutes, func(a, b decisionMinute) int { return cmpInt64(a.Start, b.Start) }) {
		return fmt.Errorf("cannot restore hourly decision state of %q: minutes out of order", s)
	}
	h.syms[s] = &st
	return nil
}

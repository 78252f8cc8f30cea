package operators

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/marketintel/mi/schemas"
)

// Alert event names (spec §6). A subscription may name the ones whose
// detector runs in the instance (LiveEvents).
const (
	AlertDecisionChange       = "decision_change"
	AlertUnusualFlow          = "unusual_flow"
	AlertFundingExtreme       = "funding_extreme"
	AlertNews                 = "news"
	AlertStablecoinDepeg      = "stablecoin_depeg"
	AlertPredictionMarketMove = "prediction_market_move"
	AlertTokenRiskChange      = "token_risk_change"
	AlertSECFiling            = "sec_filing"
)

// AlertEventNames are all event names of spec §6, in spec order.
var AlertEventNames = []string{
	AlertDecisionChange, AlertUnusualFlow, AlertFundingExtreme, AlertNews,
	AlertStablecoinDepeg, AlertPredictionMarketMove, AlertTokenRiskChange, AlertSECFiling,
}

// IsAlertEvent reports whether name is one of AlertEventNames.
func IsAlertEvent(name string) bool { return slices.Contains(AlertEventNames, name) }

// Thresholds of the live detectors.
const (
	// UnusualFlowWindow is the document window unusual_flow watches.
	UnusualFlowWindow = "5m"
	// UnusualFlowMinConfidence is the least confidenceScore of a document
	// that fires unusual_flow.
	UnusualFlowMinConfidence = 60
	// UnusualFlowCooldown is the least time between two unusual_flow events
	// of one symbol and eventType.
	UnusualFlowCooldown = time.Hour
	// DecisionWindow is the document window the hourly decision reads.
	DecisionWindow = "15m"
	// DecisionMinConfidence is the least confidenceScore for a buy or sell.
	DecisionMinConfidence = 60
)

// Decision actions of decision_change.
const (
	ActionBuy  = "buy"
	ActionHold = "hold"
	ActionSell = "sell"
)

// AlertEvent is one alertable event on mi.events.v1 (key: symbol; value: the
// JSON of this struct). ID is derived from the event's content, so detecting
// the same input again yields the same id; the alert outbox stores each id
// once.
type AlertEvent struct {
	ID         string          `json:"id"`
	Event      string          `json:"event"`
	Symbol     string          `json:"symbol"`
	OccurredAt time.Time       `json:"occurredAt"`
	Data       json.RawMessage `json:"data"`
}

// UnusualFlowData is the data of an unusual_flow event.
type UnusualFlowData struct {
	EventType        string   `json:"eventType"`
	Window           string   `json:"window"`
	ConfidenceScore  float64  `json:"confidenceScore"`
	AnomalyScore     float64  `json:"anomalyScore"`
	MomentumScore    float64  `json:"momentumScore"`
	BuyPressure      float64  `json:"buyPressure"`
	Price            float64  `json:"price"`
	PriceChangePct   float64  `json:"priceChangePercent"`
	Volume           float64  `json:"volume"`
	TradeCount       int64    `json:"tradeCount"`
	Signal           string   `json:"signal"`
	DocumentID       string   `json:"documentId"`
	Evidence         []string `json:"evidence,omitempty"`
	DocumentTimeNano int64    `json:"-"`
}

// DecisionChangeData is the data of a decision_change event.
type DecisionChangeData struct {
	// From and To are buy, hold or sell.
	From string `json:"from"`
	To   string `json:"to"`
	// Hour is the UTC hour the new decision covers (its start); the event
	// occurs at its end.
	Hour            time.Time `json:"hour"`
	Signal          string    `json:"signal"`
	SignalStrength  string    `json:"signalStrength"`
	ConfidenceScore float64   `json:"confidenceScore"`
	MomentumScore   float64   `json:"momentumScore"`
	BuyPressure     float64   `json:"buyPressure"`
	Price           float64   `json:"price"`
	DocumentID      string    `json:"documentId"`
}

// Decide is the hourly decision rule: buy when the signal is BULLISH with a
// confidence of at least DecisionMinConfidence, sell when it is BEARISH with
// that confidence, hold otherwise.
func Decide(signal string, confidence float64) string {
	switch {
	case signal == SignalBullish && confidence >= DecisionMinConfidence:
		return ActionBuy
	case signal == SignalBearish && confidence >= DecisionMinConfidence:
		return ActionSell
	}
	return ActionHold
}

// AlertDetector turns intelligence documents into alert events. It is a
// pure operator: no I/O, no clock (time comes from the documents), and the
// same documents in the same order yield the same events. Its state is per
// symbol, so one detector per input partition, fed the documents of that
// partition's engine, sees every document of its symbols in order.
//
//   - unusual_flow: a 5m document whose eventType is not NORMAL and whose
//     confidenceScore is at least 60 fires, unless the same symbol fired the
//     same eventType less than an hour earlier (document time).
//   - decision_change: the decision of a symbol for a UTC hour is Decide
//     applied to the last 15m document of that hour. It is settled by the
//     first 15m document of a later hour; when it differs from the decision
//     of the symbol's previous settled hour, decision_change fires at the
//     end of the settled hour. The first settled hour of a symbol fires
//     nothing.
type AlertDetector struct {
	syms  map[string]*alertSymState
	dirty map[string]bool // symbols whose state changed since ClearDirty
}

type alertSymState struct {
	// LastFlow is the document time of the last unusual_flow per eventType.
	LastFlow map[string]int64 `json:"lastFlow,omitempty"`
	// Hour is the start (ns) of the hour whose decision is open; 0 = none.
	Hour int64 `json:"hour,omitempty"`
	// Pending is the last 15m document of the open hour, as decision data.
	Pending *DecisionChangeData `json:"pending,omitempty"`
	// Action is the decision of the last settled hour; "" = none yet.
	Action string `json:"action,omitempty"`
}

// NewAlertDetector returns a detector with empty state.
func NewAlertDetector() *AlertDetector {
	return &AlertDetector{syms: map[string]*alertSymState{}, dirty: map[string]bool{}}
}

// sym returns the state of symbol s for a change: it is marked dirty.
func (a *AlertDetector) sym(s string) *alertSymState {
	st := a.syms[s]
	if st == nil {
		st = &alertSymState{}
		a.syms[s] = st
	}
	a.dirty[s] = true
	return st
}

// Push runs one document through the detectors and appends the events it
// fires to out.
func (a *AlertDetector) Push(d *schemas.IntelligenceDocument, out []AlertEvent) []AlertEvent {
	if d.Symbol == "" || d.TimestampNs <= 0 {
		return out
	}
	switch d.Window {
	case UnusualFlowWindow:
		out = a.unusualFlow(d, out)
	case DecisionWindow:
		out = a.decision(d, out)
	}
	return out
}

func (a *AlertDetector) unusualFlow(d *schemas.IntelligenceDocument, out []AlertEvent) []AlertEvent {
	if d.EventType == "" || d.EventType == EventNormal || d.ConfidenceScore < UnusualFlowMinConfidence {
		return out
	}
	st := a.sym(d.Symbol)
	if last, ok := st.LastFlow[d.EventType]; ok && d.TimestampNs-last < int64(UnusualFlowCooldown) {
		return out
	}
	if st.LastFlow == nil {
		st.LastFlow = map[string]int64{}
	}
	st.LastFlow[d.EventType] = d.TimestampNs
	data := UnusualFlowData{
		EventType: d.EventType, Window: d.Window, ConfidenceScore: d.ConfidenceScore,
		AnomalyScore: d.AnomalyScore, MomentumScore: d.MomentumScore, BuyPressure: d.BuyPressure,
		Price: d.Price, PriceChangePct: d.PriceChangePercent, Volume: d.Volume, TradeCount: d.TradeCount,
		Signal: d.Signal, DocumentID: d.Id, Evidence: d.Evidence,
	}
	return append(out, newAlertEvent(AlertUnusualFlow, d.Symbol, d.TimestampNs, d.EventType, data))
}

func (a *AlertDetector) decision(d *schemas.IntelligenceDocument, out []AlertEvent) []AlertEvent {
	st := a.sym(d.Symbol)
	hour := d.TimestampNs - d.TimestampNs%int64(time.Hour)
	if hour < st.Hour {
		return out // older than the open hour: that hour is settled
	}
	if hour > st.Hour && st.Pending != nil {
		// The open hour is settled.
		p := *st.Pending
		p.To = Decide(p.Signal, p.ConfidenceScore)
		p.From = st.Action
		st.Action = p.To
		if p.From != "" && p.From != p.To {
			end := st.Hour + int64(time.Hour)
			out = append(out, newAlertEvent(AlertDecisionChange, d.Symbol, end, p.From+">"+p.To, p))
		}
		st.Pending = nil
	}
	st.Hour = hour
	if st.Pending == nil {
		st.Pending = new(DecisionChangeData) // reused for every document of the hour
	}
	*st.Pending = DecisionChangeData{
		Hour: time.Unix(0, hour).UTC(), Signal: d.Signal, SignalStrength: d.SignalStrength,
		ConfidenceScore: d.ConfidenceScore, MomentumScore: d.MomentumScore, BuyPressure: d.BuyPressure,
		Price: d.Price, DocumentID: d.Id,
	}
	return out
}

// newAlertEvent builds an event whose id is a hash of its name, symbol,
// time and discriminator.
func newAlertEvent(name, symbol string, atNs int64, disc string, data any) AlertEvent {
	raw, err := json.Marshal(data)
	if err != nil {
		panic("BUG: cannot marshal alert event data: " + err.Error())
	}
	h := sha256.Sum256([]byte(name + "|" + symbol + "|" + strconv.FormatInt(atNs, 10) + "|" + disc))
	return AlertEvent{
		ID: "evt_" + hex.EncodeToString(h[:12]), Event: name, Symbol: symbol,
		OccurredAt: time.Unix(0, atNs).UTC(), Data: raw,
	}
}

// DirtySymbols returns, sorted, the symbols whose state changed since the
// last ClearDirty.
func (a *AlertDetector) DirtySymbols() []string {
	out := make([]string, 0, len(a.dirty))
	for s := range a.dirty {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// ClearDirty forgets which symbols changed; call it once their state is
// written.
func (a *AlertDetector) ClearDirty() { clear(a.dirty) }

// AppendSymbolState appends the state of symbol s (deterministic JSON) to
// b, for a checkpoint.
func (a *AlertDetector) AppendSymbolState(b []byte, s string) []byte {
	st := a.syms[s]
	if st == nil {
		st = &alertSymState{}
	}
	v, err := json.Marshal(st)
	if err != nil {
		panic("BUG: cannot marshal alert detector state: " + err.Error())
	}
	return append(b, v...)
}

// RestoreSymbolState replaces the state of symbol s with one
// AppendSymbolState returned. On error the state is left as it was.
func (a *AlertDetector) RestoreSymbolState(s string, data []byte) error {
	var st alertSymState
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("cannot restore alert detector state of %q: %w", s, err)
	}
	a.syms[s] = &st
	return nil
}

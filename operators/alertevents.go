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

// AlertDetector turns intelligence documents into unusual_flow events. It is a
// pure operator: no I/O, no clock (time comes from the documents), and the
// same documents in the same order yield the same events. Its state is per
// symbol, so one detector per input partition, fed the documents of that
// partition's engine, sees every document of its symbols in order.
//
//   - unusual_flow: a 5m document whose eventType is not NORMAL and whose
//     confidenceScore is at least 60 fires, unless the same symbol fired the
//     same eventType less than an hour earlier (document time).
//
// decision_change, which also reads the candles, is HourlyDecision's.
type AlertDetector struct {
	syms  map[string]*alertSymState
	dirty map[string]bool // symbols whose state changed since ClearDirty
}

type alertSymState struct {
	// LastFlow is the document time of the last unusual_flow per eventType.
	// State written before decision_change moved to HourlyDecision also
	// has hour, pending and action: they are ignored.
	LastFlow map[string]int64 `json:"lastFlow,omitempty"`
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
	if d.Window == UnusualFlowWindow {
		out = a.unusualFlow(d, out)
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

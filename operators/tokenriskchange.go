package operators

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/marketintel/mi/schemas"
)

// token_risk_change rules (spec §6; docs/token.md#token_risk_change).
const (
	// TokenRiskCheckEvery is how often a watched token is checked.
	TokenRiskCheckEvery = 30 * time.Minute
	// TokenWatchMax is the most tokens one subscription watches.
	TokenWatchMax = 5
)

// TokenWatchChains are the chains a watched token may be on.
var TokenWatchChains = []string{"base", "ethereum", "arbitrum", "optimism", "polygon", "solana"}

// Verdicts of a TokenRiskObservation that are not a risk verdict.
const (
	TokenRiskUnsupported = "UNSUPPORTED"
	TokenRiskError       = "ERROR"
)

// TokenRiskChangeData is the data of a token_risk_change event.
type TokenRiskChangeData struct {
	Chain  string `json:"chain"`
	Token  string `json:"token"`
	Symbol string `json:"symbol,omitempty"`
	// Changed lists what changed: "verdict", "sell_simulation" or both.
	Changed                []string  `json:"changed"`
	Verdict                string    `json:"verdict"`
	PreviousVerdict        string    `json:"previousVerdict"`
	SellSimulation         string    `json:"sellSimulation"`
	PreviousSellSimulation string    `json:"previousSellSimulation"`
	SellDetail             string    `json:"sellDetail"`
	SafetyScore            int32     `json:"safetyScore"`
	FailedChecks           []string  `json:"failedChecks"`
	ObservedAt             time.Time `json:"observedAt"`
	Block                  uint64    `json:"block"`
}

// TokenRiskKey is the event symbol of a watched token: "<chain>:<token>".
func TokenRiskKey(chain, token string) string { return chain + ":" + token }

// TokenRiskChangeDetector fires token_risk_change when a watched token's
// risk verdict or sell simulation result changes between two checks. The
// first check of a token sets its baseline and fires nothing. Checks that
// could not run (ERROR), chains without a risk reader (UNSUPPORTED: solana)
// and sell simulations that are UNKNOWN (the chain did not answer) change
// nothing: an RPC failure is not a risk change. It is a pure operator: time
// comes from the observations; older observations than the last are
// ignored.
type TokenRiskChangeDetector struct {
	tokens map[string]*riskToken
}

type riskToken struct {
	Verdict string `json:"verdict"`
	Sell    string `json:"sell"`
	LastNs  int64  `json:"lastNs"`
}

// NewTokenRiskChangeDetector returns a detector without baselines.
func NewTokenRiskChangeDetector() *TokenRiskChangeDetector {
	return &TokenRiskChangeDetector{tokens: map[string]*riskToken{}}
}

// Push runs one observation through the detector and appends the event it
// fires, if any, to out.
func (d *TokenRiskChangeDetector) Push(o *schemas.TokenRiskObservation, out []AlertEvent) []AlertEvent {
	if o == nil || o.Token == "" || o.Chain == "" || o.Verdict == TokenRiskError || o.Verdict == TokenRiskUnsupported || o.Verdict == "" {
		return out
	}
	k := TokenRiskKey(o.Chain, o.Token)
	t := d.tokens[k]
	if t != nil && o.ObservedNs <= t.LastNs {
		return out
	}
	if t == nil {
		t = &riskToken{}
		d.tokens[k] = t
	}
	t.LastNs = o.ObservedNs
	prevV, prevS := t.Verdict, t.Sell
	t.Verdict = o.Verdict
	if o.SellSimulation != "" && o.SellSimulation != "UNKNOWN" {
		t.Sell = o.SellSimulation
	}
	if prevV == "" {
		return out // baseline
	}
	var changed []string
	if t.Verdict != prevV {
		changed = append(changed, "verdict")
	}
	if prevS != "" && t.Sell != prevS {
		changed = append(changed, "sell_simulation")
	}
	if len(changed) == 0 {
		return out
	}
	data := TokenRiskChangeData{Chain: o.Chain, Token: o.Token, Symbol: o.Symbol, Changed: changed, Verdict: t.Verdict, PreviousVerdict: prevV,
		SellSimulation: t.Sell, PreviousSellSimulation: prevS, SellDetail: o.SellDetail, SafetyScore: o.SafetyScore,
		FailedChecks: append([]string{}, o.FailedChecks...), ObservedAt: time.Unix(0, o.ObservedNs).UTC(), Block: o.Block}
	return append(out, newAlertEvent(AlertTokenRiskChange, k, o.ObservedNs, t.Verdict+"|"+t.Sell, data))
}

// MarshalState returns the detector state as JSON (sorted keys).
func (d *TokenRiskChangeDetector) MarshalState() []byte {
	keys := make([]string, 0, len(d.tokens))
	for k := range d.tokens {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	type entry struct {
		Key string `json:"key"`
		riskToken
	}
	es := make([]entry, len(keys))
	for i, k := range keys {
		es[i] = entry{k, *d.tokens[k]}
	}
	b, err := json.Marshal(es)
	if err != nil {
		panic("BUG: cannot marshal token risk detector state: " + err.Error())
	}
	return b
}

// RestoreState replaces the state with one MarshalState returned.
func (d *TokenRiskChangeDetector) RestoreState(b []byte) error {
	var es []struct {
		Key string `json:"key"`
		riskToken
	}
	if err := json.Unmarshal(b, &es); err != nil {
		return fmt.Errorf("cannot restore token risk detector state: %w", err)
	}
	m := make(map[string]*riskToken, len(es))
	for _, e := range es {
		if !slices.Contains([]string{"LOW_RISK", "CAUTION", "HIGH_RISK"}, e.Verdict) {
			return fmt.Errorf("cannot restore token risk detector state: %q has verdict %q", e.Key, e.Verdict)
		}
		t := e.riskToken
		m[e.Key] = &t
	}
	d.tokens = m
	return nil
}

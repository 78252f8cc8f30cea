package token

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/pipeline/sources/token/assess"
	"github.com/marketintel/mi/schemas"
)

// Observe runs the scheduled risk check of a watched token for
// token_risk_change (every 30 minutes, operators.TokenRiskChangeDetector):
// the risk report reduced to its verdict and sell simulation. A Solana
// token is UNSUPPORTED: the simulation and the scans read EVM state, and
// no Solana risk reader exists, so a Solana watch never fires (the
// subscription is accepted and says so). A check that cannot run is ERROR
// with the reason, which changes nothing in the detector.
func (r *Reader) Observe(ctx context.Context, chainName, address string) *schemas.TokenRiskObservation {
	now := r.clk.Now()
	o := &schemas.TokenRiskObservation{Chain: chainName, Token: address, ObservedNs: now.UnixNano(), ReadNs: now.UnixNano()}
	if chainName == "solana" {
		o.Verdict, o.Error = "UNSUPPORTED", "token risk checks read EVM state; Solana tokens are not checked"
		return o
	}
	if !common.IsHexAddress(address) {
		o.Verdict, o.Error = "ERROR", "not an EVM address"
		return o
	}
	a := common.HexToAddress(address)
	o.Token = a.Hex()
	rep, err := r.Risk(ctx, chainName, a)
	if err != nil {
		o.Verdict, o.Error = "ERROR", err.Error()
		return o
	}
	o.Symbol, o.Block, o.ObservedNs = rep.Symbol, rep.Block, rep.Timestamp.UnixNano()
	o.Verdict, o.SafetyScore, o.FailedChecks = rep.Verdict, int32(rep.SafetyScore), rep.FailedChecks
	for _, c := range rep.Checks {
		if c.Name == "sell_simulation" {
			o.SellSimulation, o.SellDetail = c.Result, c.Detail
		}
	}
	if o.SellSimulation == "" {
		o.SellSimulation = assess.Unknown
	}
	return o
}

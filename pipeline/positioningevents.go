package pipeline

import (
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/schemas"
)

// PositioningEventsGroup is the consumer group of the positioning event
// stage.
const PositioningEventsGroup = "mi-positioning-events"

// PositioningEventsConfig configures the positioning event stage (role
// "events"): the side-event stage (RunSideEvents) in its own consumer
// group PositioningEventsGroup, with the detectors Detectors returns.
type PositioningEventsConfig struct {
	// Funding runs operators.FundingExtremeDetector over mi.positioning.v1;
	// Predictions runs operators.PredictionMoveDetector over
	// mi.prediction-markets.v1. At least one must be set.
	Funding, Predictions bool
	// Group is the consumer group; default PositioningEventsGroup.
	Group string
}

// Detectors returns the stage's detectors: funding_extreme from the perp
// snapshots of mi.positioning.v1 and prediction_market_move from the
// quotes of mi.prediction-markets.v1 (docs/positioning.md#events). As in
// every side-event stage, their state is checkpointed in TopicSideState in
// the transaction that publishes their events and commits their offsets:
// a restarted or rebalanced stage raises nothing twice, and a prediction
// market's quotes of the last hour survive a restart. Time comes from the
// records only.
func (cfg PositioningEventsConfig) Detectors() []SideDetector {
	var out []SideDetector
	if cfg.Funding {
		out = append(out, DetectorOf("funding_extreme", sidetopic.Positioning, schemas.ValidatePerpSnapshot,
			operators.NewFundingExtremeDetector, operators.AlertFundingExtreme))
	}
	if cfg.Predictions {
		out = append(out, DetectorOf("prediction_market_move", sidetopic.PredictionMarkets, schemas.ValidatePredictionQuote,
			operators.NewPredictionMoveDetector, operators.AlertPredictionMarketMove))
	}
	if len(out) == 0 {
		panic("BUG: a positioning event stage without a detector")
	}
	return out
}

// Events returns the events the stage raises with cfg: the ones to
// register as live (operators.LiveEvents) when it runs.
func (cfg PositioningEventsConfig) Events() []string {
	var out []string
	if cfg.Funding {
		out = append(out, operators.AlertFundingExtreme)
	}
	if cfg.Predictions {
		out = append(out, operators.AlertPredictionMarketMove)
	}
	return out
}

// sideEvents is the stage's configuration of RunSideEvents.
func (cfg PositioningEventsConfig) sideEvents(brokers []string) SideEventsConfig {
	group := cfg.Group
	if group == "" {
		group = PositioningEventsGroup
	}
	return SideEventsConfig{Brokers: brokers, Detectors: cfg.Detectors(), Group: group, Name: "positioning-events"}
}

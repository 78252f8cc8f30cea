package main

import (
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/pipeline/sources/perps"
)

// positioningEvents returns the positioning event stage's configuration
// when the sources configuration reads perp positioning (funding_extreme)
// or prediction markets (prediction_market_move), nil otherwise: a
// detector runs, and its event is offered in subscriptions, only when its
// source is configured.
func positioningEvents(live *liveSetup) *pipeline.PositioningEventsConfig {
	if live == nil {
		return nil // the live sources are off (see loadLive)
	}
	var c pipeline.PositioningEventsConfig
	for _, sc := range live.cfg.Sources {
		if sc.Disabled {
			continue
		}
		c.Funding = c.Funding || sc.Kind == perps.KindPositioning
		c.Predictions = c.Predictions || sc.Kind == perps.KindPredictionMarkets
	}
	if !c.Funding && !c.Predictions {
		return nil
	}
	return &c
}

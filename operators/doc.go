// Package operators holds the pure stream operators of one input partition:
// validation, watermarks, dedupe, closed 1-minute candles, trailing 1m/5m/15m
// windows, large-trade detection, intelligence documents, and the baselines,
// scores, signals and signal lifecycle inside them.
//
// Operators do no I/O, read no clock and start no goroutines. Time comes only
// from the event times of the trades pushed in, and output leaves through the
// functions of an [Emit], synchronously from [Engine.Push]. The same input
// sequence always yields the same output sequence, byte for byte, and an
// engine restored from its checkpointed state (see [Engine.AppendState])
// continues exactly as the original would have.
//
// The rules, defaults and edge cases are written down in docs/operators.md;
// the baselines, scores, event types, signals and lifecycle in
// docs/signals.md.
//
// Over the engine's output run the alert detectors of the process role:
// [AlertDetector] (unusual_flow, from the documents) and [HourlyDecision]
// (decision_change: the pre-trade assessment of package decision on both
// sides, once per symbol and hour, from the documents and the candles;
// docs/decisions.md).
package operators

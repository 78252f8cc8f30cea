package token

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/schemas"
)

// DepegEvery is the depeg watch's period (spec §6: checked every 5 minutes).
const DepegEvery = 5 * time.Minute

// WatchOptions configure the watches.
type WatchOptions struct {
	// Registry receives the watch's freshness ("token:depeg",
	// "token:risk-watch"); nil: a private registry.
	Registry *sources.Registry
	Clock    clock.Clock
}

// NewDepegWatch returns the poller that reads every listed stablecoin each
// DepegEvery (aligned to the clock's 5-minute slots) and hands each quote
// to emit. A stablecoin whose read fails is skipped for that cycle; the
// cycle fails (and is retried with backoff) only when every read failed.
func NewDepegWatch(r *Reader, coins []Stablecoin, emit func(context.Context, *schemas.StablecoinQuote) error, o WatchOptions) *poll.Poller {
	reg := o.Registry
	if reg == nil {
		reg = sources.NewRegistry(nil, o.Clock)
	}
	h := reg.Register("token:depeg", "chain", "stablecoin pools and feeds")
	return &poll.Poller{Schedule: poll.Every(DepegEvery), Health: h, Clock: o.Clock,
		Poll: func(ctx context.Context) (time.Time, error) {
			var newest time.Time
			var errs []error
			for _, sc := range coins {
				q, err := r.StablecoinQuote(ctx, sc)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s on %s: %w", sc.Symbol, sc.Chain, err))
					continue
				}
				if err := emit(ctx, q); err != nil {
					return newest, err
				}
				if t := time.Unix(0, q.ObservedNs); t.After(newest) {
					newest = t
				}
			}
			if len(errs) == len(coins) && len(coins) > 0 {
				return newest, errors.Join(errs...)
			}
			return newest, nil
		}}
}

// WatchedToken is a token of a token_risk_change subscription.
type WatchedToken struct {
	Chain, Address string
}

// NewRiskWatch returns the poller that checks every watched token (list is
// asked each cycle: the subscriptions change) each
// operators.TokenRiskCheckEvery and hands each observation to emit.
// Observations of checks that could not run are emitted too (verdict
// ERROR or UNSUPPORTED): the detector ignores them, /status and the
// Parquet files show them.
func NewRiskWatch(r *Reader, list func() []WatchedToken, emit func(context.Context, *schemas.TokenRiskObservation) error, o WatchOptions) *poll.Poller {
	reg := o.Registry
	if reg == nil {
		reg = sources.NewRegistry(nil, o.Clock)
	}
	h := reg.Register("token:risk-watch", "chain", "watched tokens")
	return &poll.Poller{Schedule: poll.Every(operators.TokenRiskCheckEvery), Health: h, Clock: o.Clock,
		Poll: func(ctx context.Context) (time.Time, error) {
			var newest time.Time
			for _, w := range list() {
				obs := r.Observe(ctx, w.Chain, w.Address)
				if err := emit(ctx, obs); err != nil {
					return newest, err
				}
				if t := time.Unix(0, obs.ObservedNs); t.After(newest) {
					newest = t
				}
			}
			return newest, nil
		}}
}

// NewDepegSource runs the depeg watch as a live source of
// mi.stablecoins.v1 records (sidetopic.Stablecoins) for the pipeline's
// ingest loop.
func NewDepegSource(r *Reader, coins []Stablecoin, o WatchOptions) sources.Source {
	e := sidetopic.NewEmitter("token:depeg", 64)
	p := NewDepegWatch(r, coins, func(ctx context.Context, q *schemas.StablecoinQuote) error {
		return e.Emit(ctx, sidetopic.Stablecoins.Record(q))
	}, o)
	return &watchSource{e: e, run: p.Run}
}

// NewRiskWatchSource runs the risk watch as a live source of
// mi.token-risk.v1 records (sidetopic.TokenRisk).
func NewRiskWatchSource(r *Reader, list func() []WatchedToken, o WatchOptions) sources.Source {
	e := sidetopic.NewEmitter("token:risk-watch", 64)
	p := NewRiskWatch(r, list, func(ctx context.Context, obs *schemas.TokenRiskObservation) error {
		return e.Emit(ctx, sidetopic.TokenRisk.Record(obs))
	}, o)
	return &watchSource{e: e, run: p.Run}
}

// watchSource starts its poller on the first Next and stops it on Close.
type watchSource struct {
	e       *sidetopic.Emitter
	run     func(context.Context) error
	started bool
	cancel  context.CancelFunc
}

func (s *watchSource) Name() string { return s.e.Name() }

func (s *watchSource) Next(ctx context.Context) (sources.Record, error) {
	if !s.started {
		s.started = true
		rctx, cancel := context.WithCancel(context.Background())
		s.cancel = cancel
		go func() { _ = s.run(rctx) }()
	}
	return s.e.Next(ctx)
}

func (s *watchSource) Close() error {
	if s.cancel != nil {
		s.cancel()
	}
	return s.e.Close()
}

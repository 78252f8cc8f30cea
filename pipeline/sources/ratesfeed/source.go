package ratesfeed

import (
	"context"
	"sync"

	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
)

// Source is a live sources.Source fed by a poller: run starts on the first
// Next (openers must not do I/O) with a context that Close cancels, and
// hands its records to the emitter. When run returns, the source ends
// after its queued records.
type Source struct {
	*sidetopic.Emitter
	run    func(ctx context.Context) error
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
}

// NewSource returns the source named name; run gets the Feed-ready emit
// function through the Emitter (see Emit).
func NewSource(name string, buffer int, run func(ctx context.Context, emit EmitFunc) error) *Source {
	e := sidetopic.NewEmitter(name, buffer)
	ctx, cancel := context.WithCancel(context.Background())
	s := &Source{Emitter: e, ctx: ctx, cancel: cancel}
	s.run = func(ctx context.Context) error { return run(ctx, e.Emit) }
	return s
}

// Next starts the poller on the first call, then returns its records.
func (s *Source) Next(ctx context.Context) (sources.Record, error) {
	s.once.Do(func() {
		go func() {
			_ = s.run(s.ctx)
			s.Emitter.End()
		}()
	})
	return s.Emitter.Next(ctx)
}

// Close stops the poller and ends the source.
func (s *Source) Close() error {
	s.cancel()
	return s.Emitter.Close()
}

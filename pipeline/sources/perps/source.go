package perps

import (
	"context"
	"errors"
	"sync"

	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
)

// Source is a poller as a live sources.Source of side records: the ingest
// loop reads, in poll order, each snapshot as a record of
// sidetopic.Positioning (each quote of sidetopic.PredictionMarkets) and each
// dead letter as a reject on that topic's DLQ. The poller starts on the
// first Next (an opener does no I/O) and stops on Close.
type Source struct {
	p    *Poller
	e    *sidetopic.Emitter
	once sync.Once
	stop context.CancelFunc
	done chan struct{}
}

// sourceBuffer is how many records the emitter holds before a poll waits for
// the ingest loop (a Bybit poll yields ~500).
const sourceBuffer = 1024

// NewSource returns the source of p's records.
func NewSource(p *Poller) *Source {
	return &Source{p: p, e: sidetopic.NewEmitter(p.Name(), sourceBuffer), done: make(chan struct{})}
}

// Name implements sources.Source.
func (s *Source) Name() string { return s.p.Name() }

// Next implements sources.Source.
func (s *Source) Next(ctx context.Context) (sources.Record, error) {
	s.once.Do(func() {
		rctx, cancel := context.WithCancel(context.Background())
		s.stop = cancel
		go func() {
			defer close(s.done)
			err := s.p.Run(rctx, func(o Output) {
				for _, r := range records(o, s.p.cfg.Prediction) {
					if s.e.Emit(rctx, r) != nil {
						return // ended or stopping
					}
				}
			})
			if err != nil && !errors.Is(err, context.Canceled) {
				s.p.log.Error("positioning poller stopped", "source", s.p.Name(), "err", err)
			}
		}()
	})
	return s.e.Next(ctx)
}

// records turns one poll's output into side records, in order: dead letters
// (on the DLQ of the poller's topic), then snapshots, then quotes.
func records(o Output, prediction bool) []sources.Record {
	out := make([]sources.Record, 0, len(o.DeadLetters)+len(o.Snapshots)+len(o.Quotes))
	for _, d := range o.DeadLetters {
		if prediction {
			out = append(out, sidetopic.PredictionMarkets.Reject(d.Raw, d.Reason))
		} else {
			out = append(out, sidetopic.Positioning.Reject(d.Raw, d.Reason))
		}
	}
	for _, s := range o.Snapshots {
		out = append(out, sidetopic.Positioning.Record(s))
	}
	for _, q := range o.Quotes {
		out = append(out, sidetopic.PredictionMarkets.Record(q))
	}
	return out
}

// Close implements sources.Source: it stops the poller and ends the
// emitter.
func (s *Source) Close() error {
	started := false
	s.once.Do(func() {}) // a source never read never starts
	if s.stop != nil {
		s.stop()
		started = true
	}
	s.e.Close()
	if started {
		<-s.done
	}
	return nil
}

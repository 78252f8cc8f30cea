package sidetopic

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/marketintel/mi/pipeline/sources"
)

// ErrEnded is returned by Emit after End or Close.
var ErrEnded = errors.New("emitter ended")

// Emitter is a sources.Source fed by a poller: the poller calls Emit with
// the records it builds (Topic.Record, Topic.Reject, or trades), the ingest
// loop reads them with Next in the order they were emitted. Emit blocks
// while the buffer is full, so a slow broker slows the poller instead of
// growing memory. It is a live source: run it with IngestConfig.Live.
//
//	e := sidetopic.NewEmitter("rates:ecb", 64)
//	go func() { // the poller
//		for _, r := range fetched {
//			if err := e.Emit(ctx, sidetopic.Rates.Record(r)); err != nil {
//				return // ended, or ctx canceled
//			}
//		}
//	}()
type Emitter struct {
	name string
	ch   chan sources.Record
	mu   sync.Mutex
	done chan struct{} // closed by End or Close
	end  bool
}

// NewEmitter returns an emitter named name (the source's name in logs,
// /status and checkpoints) that buffers up to buffer records.
func NewEmitter(name string, buffer int) *Emitter {
	return &Emitter{name: name, ch: make(chan sources.Record, max(buffer, 1)), done: make(chan struct{})}
}

// Emit queues one record. It returns ErrEnded after End or Close, or ctx's
// error while waiting for room.
func (e *Emitter) Emit(ctx context.Context, r sources.Record) error {
	select {
	case <-e.done:
		return ErrEnded
	default:
	}
	select {
	case e.ch <- r:
		return nil
	case <-e.done:
		return ErrEnded
	case <-ctx.Done():
		return ctx.Err()
	}
}

// End says the poller has nothing more: Next returns the records already
// queued, then io.EOF. A finite poll (a backfill of a date range) ends so.
func (e *Emitter) End() { e.stop() }

func (e *Emitter) stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.end {
		e.end = true
		close(e.done)
	}
}

// Name implements sources.Source.
func (e *Emitter) Name() string { return e.name }

// Next implements sources.Source: the next emitted record, io.EOF once the
// emitter ended and its buffer is empty, or ctx's error.
func (e *Emitter) Next(ctx context.Context) (sources.Record, error) {
	select {
	case r := <-e.ch:
		return r, nil
	default:
	}
	select {
	case r := <-e.ch:
		return r, nil
	case <-e.done:
		select {
		case r := <-e.ch:
			return r, nil
		default:
			return sources.Record{}, io.EOF
		}
	case <-ctx.Done():
		return sources.Record{}, ctx.Err()
	}
}

// Close implements sources.Source: it ends the emitter.
func (e *Emitter) Close() error {
	e.stop()
	return nil
}

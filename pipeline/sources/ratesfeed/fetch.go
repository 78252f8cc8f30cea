package ratesfeed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/poll"
)

// Handler uses one complete answer of a document: it parses it, hands the
// records to a Feed, and returns the publisher's time of the newest data
// in it. An error fails the cycle (the document is then read whole next
// time).
type Handler func(ctx context.Context, url string, r *poll.Response) (dataTime time.Time, err error)

// Fetch reads urls in order with c, calling handle for each complete
// answer; a "not modified" answer is skipped. Every URL is tried; it
// returns the newest data time and the errors, joined.
func Fetch(ctx context.Context, c *poll.Client, urls []string, handle Handler) (time.Time, error) {
	var newest time.Time
	var errs []error
	for _, u := range urls {
		r, err := c.Do(ctx, poll.Request{URL: u})
		if err != nil {
			errs = append(errs, err)
			if ctx.Err() != nil {
				break
			}
			continue
		}
		if r.NotModified {
			continue
		}
		t, err := handle(ctx, u, r)
		if err != nil {
			c.Forget(u)
			errs = append(errs, err)
			continue
		}
		if t.After(newest) {
			newest = t
		}
	}
	return newest, errors.Join(errs...)
}

// Runner is what a rates source's opener gets to run its poller.
type Runner struct {
	Client   *poll.Client
	Registry *sources.Registry
	Clock    clock.Clock
	Logger   *slog.Logger
}

// RunnerOf builds the runner of a source opened from a configuration
// (sources.Config.Open): the process's polite client (poll.ClientOf) and
// env's registry.
func RunnerOf(env sources.Env) Runner {
	log := env.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return Runner{Client: poll.ClientOf(env), Registry: env.Registry, Logger: log}
}

// ChainReaderOf returns the reader of chain for a source opened from a
// configuration: the process's client of that chain (chain.SetOf), shared
// with every other reader of the chain. The error names the configured
// chains when chain has no enabled entry.
func ChainReaderOf(env sources.Env, name string) (ChainReader, error) {
	set, err := chain.SetOf(env)
	if err != nil {
		return nil, err
	}
	c, err := set.Get(name)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: the chains section has no enabled entry for it: %w", name, err)
	}
	return ClientReader{C: c}, nil
}

// ChainReader returns the reader of a chains entry: a chain client of its
// own (pipeline/sources/chain) recording its health in the runner's
// registry, on the runner's clock. Tests use it; configured sources share
// the process's client of each chain (ChainReaderOf).
func (r Runner) ChainReader(cfg sources.ChainConfig, userAgent string) (ChainReader, error) {
	c, err := chain.New(cfg, chain.Options{Registry: r.Registry, Clock: r.Clock, UserAgent: userAgent})
	if err != nil {
		return nil, err
	}
	return ClientReader{C: c}, nil
}

// Run polls cycle on schedule until ctx ends, recording its health under
// name (kind "rates") with endpoint shown (redacted) in /status.
func (r Runner) Run(ctx context.Context, name, endpoint string, schedule poll.Schedule, cycle poll.PollFunc) error {
	p := &poll.Poller{Schedule: schedule, Poll: cycle, Health: r.Registry.Register(name, "rates", endpoint), Clock: r.Clock}
	return p.Run(ctx)
}

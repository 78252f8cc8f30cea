package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	pstats "github.com/marketintel/mi/pipeline/stats"
)

// Destination is where Drive puts a source's records: Kafka topics in
// transactions with a checkpoint (Ingest, for mi run and mi bench), or the
// operator chain and the Parquet sink in process (Backfill, for mi
// backfill).
type Destination interface {
	// Put takes the record at position pos (0-based) of the source. It may
	// commit on its own (a full transaction).
	Put(ctx context.Context, rec sources.Record, pos int64) error
	// Commit makes every record put so far durable. Drive calls it before
	// it waits: to pace a replay, or when a live source stays quiet past
	// Due.
	Commit(ctx context.Context) error
	// Due returns when the records put but not committed should be
	// committed even if no other record comes, and whether there are any.
	Due() (time.Time, bool)
	// End is the end-of-input signal: the source was read to its end and
	// no record will follow. Drive calls it once, after the last Put. The
	// destination commits what it holds and closes what only the end of
	// input closes (the last transaction and a finished checkpoint; the
	// day files the last record passed). Operators that hold windows open
	// until later records arrive flush them here: it is where a finite
	// replay or backfill closes its last minute and its last day.
	End(ctx context.Context) error
}

// DriveConfig paces one source and says where its state is reported.
type DriveConfig struct {
	// Speed paces a replay: event-time seconds per wall-clock second. Zero
	// means as fast as possible.
	Speed float64
	// Realtime paces a source so that event time never runs ahead of the
	// wall clock (the live simulator). It takes precedence over Speed.
	Realtime bool
	// Live marks a source that cannot be read again (a venue connection):
	// resuming it continues the committed record count, so its positions
	// stay increasing, without skipping any of its records; and the
	// destination's records are committed when it stays quiet (Due).
	Live bool
	// Stats receives the source's state, trades, rejections; nil keeps
	// them nowhere.
	Stats  *Stats
	Logger *slog.Logger
}

// Drive is the one loop that runs a source, for mi run (spec and live
// sources), mi backfill and mi bench. It skips the resume.Records records
// an earlier run committed (unless Live), paces trades by event time
// (Speed, Realtime), hands every record to dst.Put with its position in the
// source, commits before waiting, and counts trades and rejections per
// source in cfg.Stats. When the source ends (io.EOF) it calls dst.End, the
// end-of-input signal, logs the records accepted and rejected by reason,
// and returns nil — or, when every record it read was rejected, an error
// naming the top reasons (a file of unknown pools is not an empty success). A resume checkpoint marked
// Finished returns nil at once. It returns ctx's error when ctx ends, and
// an error naming the source when the source or the destination fails
// (the source is then "failed" in Stats).
func Drive(ctx context.Context, cfg DriveConfig, src sources.Source, resume Checkpoint, dst Destination) error {
	name := src.Name()
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	stats := cfg.Stats
	if stats == nil {
		stats = NewStats()
	}
	if resume.Finished {
		stats.SetState(name, "finished", nil)
		log.Info("source already read to the end", "source", name, "records", resume.Records)
		return nil
	}
	if !cfg.Live {
		for n := int64(0); n < resume.Records; n++ {
			if _, err := src.Next(ctx); err != nil {
				return fmt.Errorf("cannot skip the %d committed records of %s: %w", resume.Records, name, err)
			}
		}
		if resume.Records > 0 {
			log.Info("source resumed after its last checkpoint", "source", name, "skipped", resume.Records)
		}
	}
	stats.SetState(name, "running", nil)
	fail := func(err error) error {
		stats.SetState(name, "failed", err)
		return err
	}
	pos := resume.Records
	// What this run read: records handed on, and records the source
	// rejected by reason (the end of a finite source reports both).
	var accepted int64
	var rejected pstats.Reasons
	caughtUp := false
	var anchorEvent int64
	var anchorWall time.Time
	for {
		nctx, ncancel := ctx, context.CancelFunc(nil)
		if due, ok := dst.Due(); cfg.Live && ok {
			// A live source may go quiet: commit what is pending on time
			// instead of holding it until the next record.
			nctx, ncancel = context.WithDeadline(ctx, due)
		}
		rec, err := src.Next(nctx)
		if ncancel != nil {
			ncancel()
			if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				if err := dst.Commit(ctx); err != nil {
					return fail(err)
				}
				continue
			}
		}
		if errors.Is(err, io.EOF) {
			if err := dst.End(ctx); err != nil {
				return fail(err)
			}
			if accepted == 0 && rejected.Total() > 0 {
				return fail(fmt.Errorf("cannot use source %s: all %d of its records were rejected: %s", name, rejected.Total(), rejected.Top(3)))
			}
			stats.SetState(name, "finished", nil)
			args := []any{"source", name, "records", pos, "accepted", accepted, "rejected", rejected.Total()}
			if rejected.Total() > 0 {
				args = append(args, "rejected_by_reason", rejected.Top(5))
			}
			log.Info("source finished", args...)
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fail(fmt.Errorf("cannot read source %s: %w", name, err))
		}
		if t := rec.Trade; t != nil && !cfg.Live && !caughtUp && t.EventTimeNs >= time.Now().Add(-time.Second).UnixNano() {
			// A replay or simulation whose event time reached the wall
			// clock: say so once (a live simulation does after catching up
			// its hour of history; from here it trades in real time).
			caughtUp = true
			log.Info("source caught up with real time", "source", name, "records", pos, "event_time", time.Unix(0, t.EventTimeNs).UTC())
		}
		if t := rec.Trade; t != nil && (cfg.Realtime || cfg.Speed > 0) {
			var wait time.Duration
			if cfg.Realtime {
				wait = time.Until(time.Unix(0, t.EventTimeNs))
			} else {
				if anchorWall.IsZero() {
					anchorEvent, anchorWall = t.EventTimeNs, time.Now()
				}
				due := anchorWall.Add(time.Duration(float64(t.EventTimeNs-anchorEvent) / cfg.Speed))
				wait = time.Until(due)
			}
			if wait > 0 {
				if err := dst.Commit(ctx); err != nil {
					return fail(err)
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(wait):
				}
			}
		}
		if err := dst.Put(ctx, rec, pos); err != nil {
			return fail(err)
		}
		pos++
		switch {
		case rec.Trade != nil:
			accepted++
			stats.Trade(name, rec.Trade.EventTimeNs, rec.Trade.IngestTimeNs)
		case rec.Side != nil:
			accepted++
		case rec.Gap == nil:
			rejected.Add(rec.Reason)
			stats.Reject(name, rec.Reason)
		}
	}
}

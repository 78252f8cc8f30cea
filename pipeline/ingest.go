package pipeline

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

// Headers every ingested record carries: the source's name and the record's
// position in the source (0-based, decimal). Together they identify a record
// produced again after a crash, which the operators then drop.
const (
	HeaderSource = "source"
	HeaderSeq    = "seq"
)

// HeaderKind marks a record of mi.trades.v1 that is not a trade: with value
// KindGap the value is a schemas.Gap of the symbol in the key. Records
// without the header are trades.
const (
	HeaderKind = "kind"
	KindGap    = "gap"
)

// IsGap reports whether a record of mi.trades.v1 is a gap record.
func IsGap(r *kgo.Record) bool {
	for _, h := range r.Headers {
		if h.Key == HeaderKind {
			return string(h.Value) == KindGap
		}
	}
	return false
}

// Checkpoint is a source's committed progress, stored in
// mi.source-offsets.v1 under the source's name in the same transaction as the
// records it counts.
type Checkpoint struct {
	// Records is how many records (trades, gaps and rejected inputs) of the source
	// are committed. A restarted source skips this many.
	Records int64 `json:"records"`
	// StartNs is the simulator's start time, kept so a restarted simulator
	// regenerates the same market.
	StartNs int64 `json:"startNs,omitempty"`
	// Finished is set when a finite source was read to the end.
	Finished bool `json:"finished,omitempty"`
}

// ReadCheckpoint returns the last committed checkpoint of the named source
// and whether there was one.
//
// It first fences the source's previous incarnation on a real cluster
// (transactional id without suffix, see RunConfig): loading that producer
// id aborts a transaction a crash left open, which would otherwise hide
// the checkpoint topic's tail from this read until the transaction timeout.
func ReadCheckpoint(ctx context.Context, brokers []string, name string) (Checkpoint, bool, error) {
	fence, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.TransactionalID(transactionalID("mi-ingest-", name)), kgo.TransactionTimeout(2*time.Minute))
	if err != nil {
		return Checkpoint{}, false, fmt.Errorf("cannot create Kafka client: %w", err)
	}
	_, _, err = fence.ProducerID(ctx)
	fence.Close()
	if err != nil {
		return Checkpoint{}, false, fmt.Errorf("cannot fence the previous ingest of %s: %w", name, err)
	}
	var cp Checkpoint
	found := false
	var derr error
	err = ReadCommitted(ctx, brokers, schemas.TopicSourceOffsets, nil, func(r *kgo.Record) {
		if string(r.Key) != name {
			return
		}
		var c Checkpoint
		if err := json.Unmarshal(r.Value, &c); err != nil {
			derr = fmt.Errorf("cannot decode checkpoint of %s: %w", name, err)
			return
		}
		cp, found = c, true
	})
	if err == nil {
		err = derr
	}
	return cp, found, err
}

// IngestConfig configures one ingest loop.
type IngestConfig struct {
	Brokers []string
	// Speed paces a replay: event-time seconds per wall-clock second. Zero
	// means as fast as possible.
	Speed float64
	// Realtime paces a source so that event time never runs ahead of the
	// wall clock (the live simulator). It takes precedence over Speed.
	Realtime bool
	// Live marks a source that cannot be read again (a venue connection):
	// resuming it continues the committed record count, so its "seq"
	// headers stay increasing, without skipping any of its records.
	Live bool
	// TxnRecords and TxnInterval bound one transaction: it commits after
	// this many records or this much time, whichever comes first.
	TxnRecords  int
	TxnInterval time.Duration
	// TxnSuffix is appended to the transactional id; see RunConfig.
	TxnSuffix string
	// StartNs is stored in every checkpoint (see Checkpoint.StartNs).
	StartNs int64
	Stats   *Stats
	Logger  *slog.Logger
	// Progress, when set, is called after each commit with the number of
	// records committed so far.
	Progress func(records int64)
}

// Ingest reads src and writes its trades to mi.trades.v1 (key = symbol), its
// gaps to mi.trades.v1 too (key = symbol, header "kind: gap", value a
// schemas.Gap whose source is the source's name unless the source set one),
// its side records to their topics (see pipeline/sidetopic) and its rejected
// inputs to mi.trades.dlq.v1 or the DLQ the record names (reason in header
// "reason"), each
// with "source" and "seq" headers, in transactions; after each one commits, a
// second transaction writes the source checkpoint that counts them. It skips
// the resume.Records records already committed by an earlier run. It returns nil
// when a finite source is exhausted and committed, or ctx's error.
func Ingest(ctx context.Context, cfg IngestConfig, src sources.Source, resume Checkpoint) error {
	name := src.Name()
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.TxnRecords <= 0 {
		cfg.TxnRecords = 5000
	}
	if cfg.TxnInterval <= 0 {
		cfg.TxnInterval = 200 * time.Millisecond
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
	for n := int64(0); n < resume.Records && !cfg.Live; n++ {
		if _, err := src.Next(ctx); err != nil {
			return fmt.Errorf("cannot skip the %d committed records of %s: %w", resume.Records, name, err)
		}
	}
	if resume.Records > 0 && !cfg.Live {
		log.Info("source resumed after its last checkpoint", "source", name, "skipped", resume.Records)
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.TransactionalID(transactionalID("mi-ingest-", name)+cfg.TxnSuffix),
		kgo.TransactionTimeout(2*time.Minute),
		kgo.ProducerLinger(2*time.Millisecond),
		kgo.MaxBufferedRecords(100_000),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.ProducerBatchMaxBytes(4<<20),
	)
	if err != nil {
		return fmt.Errorf("cannot create Kafka producer for %s: %w", name, err)
	}
	defer cl.Close()
	// A stop leaves no transaction open (see Process); the records it held
	// are not counted in the checkpoint, so they are produced again.
	defer func() {
		actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = cl.AbortBufferedRecords(actx)
		_ = cl.EndTransaction(actx, kgo.TryAbort)
	}()

	stats.SetState(name, "running", nil)
	var (
		mu       sync.Mutex
		firstErr error
	)
	promise := func(_ *kgo.Record, err error) {
		if err != nil {
			mu.Lock()
			if firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
		}
	}
	committed := resume.Records
	inTxn, pending := false, 0
	var txnStart time.Time
	// commit ends the open transaction of records and then, in a second
	// transaction, writes the checkpoint that counts them. Two transactions,
	// in this order, because a broker that crashes while committing may
	// commit some partitions of a transaction and not others: a checkpoint
	// must never be committed without the records it counts. Records whose
	// checkpoint was lost are produced again on restart with the same "seq"
	// header, and the operators drop them as re-deliveries.
	commit := func(finished bool) error {
		if inTxn {
			if err := cl.Flush(ctx); err != nil {
				return fmt.Errorf("cannot flush: %w", err)
			}
			mu.Lock()
			perr := firstErr
			mu.Unlock()
			if perr != nil {
				_ = cl.EndTransaction(ctx, kgo.TryAbort)
				return fmt.Errorf("cannot produce: %w", perr)
			}
			if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
				return fmt.Errorf("cannot commit transaction: %w", err)
			}
			committed += int64(pending)
			inTxn, pending = false, 0
		} else if !finished {
			return nil
		}
		if err := cl.BeginTransaction(); err != nil {
			return fmt.Errorf("cannot begin transaction: %w", err)
		}
		cp, _ := json.Marshal(Checkpoint{Records: committed, StartNs: cfg.StartNs, Finished: finished})
		cl.Produce(ctx, &kgo.Record{Topic: schemas.TopicSourceOffsets, Key: []byte(name), Value: cp}, promise)
		if err := cl.Flush(ctx); err != nil {
			return fmt.Errorf("cannot flush: %w", err)
		}
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			return fmt.Errorf("cannot commit checkpoint: %w", err)
		}
		if cfg.Progress != nil {
			cfg.Progress(committed)
		}
		return nil
	}
	nameBytes := []byte(name)
	caughtUp := false
	var anchorEvent int64
	var anchorWall time.Time
	for {
		nctx, ncancel := ctx, context.CancelFunc(nil)
		if cfg.Live && inTxn {
			// A live source may go quiet: commit what is pending on time
			// instead of holding it until the next record.
			nctx, ncancel = context.WithDeadline(ctx, txnStart.Add(cfg.TxnInterval))
		}
		rec, err := src.Next(nctx)
		if ncancel != nil {
			ncancel()
			if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				if err := commit(false); err != nil {
					stats.SetState(name, "failed", err)
					return err
				}
				continue
			}
		}
		if errors.Is(err, io.EOF) {
			if err := commit(true); err != nil {
				stats.SetState(name, "failed", err)
				return err
			}
			stats.SetState(name, "finished", nil)
			log.Info("source finished", "source", name, "records", committed)
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			stats.SetState(name, "failed", err)
			return fmt.Errorf("cannot read source %s: %w", name, err)
		}
		if t := rec.Trade; t != nil && !cfg.Live && !caughtUp && t.EventTimeNs >= time.Now().Add(-time.Second).UnixNano() {
			// A replay or simulation whose event time reached the wall
			// clock: say so once (a live simulation does after catching up
			// its hour of history; from here it trades in real time).
			caughtUp = true
			log.Info("source caught up with real time", "source", name, "records", committed+int64(pending), "event_time", time.Unix(0, t.EventTimeNs).UTC())
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
				if err := commit(false); err != nil {
					stats.SetState(name, "failed", err)
					return err
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(wait):
				}
			}
		}
		if !inTxn {
			if err := cl.BeginTransaction(); err != nil {
				return fmt.Errorf("cannot begin transaction: %w", err)
			}
			inTxn, txnStart = true, time.Now()
		}
		seq := []byte(strconv.FormatInt(committed+int64(pending), 10))
		if t := rec.Trade; t != nil {
			v := schemas.AppendTrade(make([]byte, 0, 160), t)
			cl.Produce(ctx, &kgo.Record{Topic: schemas.TopicTrades, Key: []byte(t.Symbol), Value: v,
				Headers: []kgo.RecordHeader{{Key: HeaderSource, Value: nameBytes}, {Key: HeaderSeq, Value: seq}}}, promise)
			stats.Trade(name, t.EventTimeNs, t.IngestTimeNs)
		} else if g := rec.Gap; g != nil {
			// A gap goes to the symbol's partition of mi.trades.v1, in order
			// with its trades, so the operators owning the symbol see it
			// in the same transactions and checkpoints (docs/topics.md).
			g = &schemas.Gap{Source: cmp.Or(g.Source, name), FromNs: g.FromNs, ToNs: g.ToNs, Reason: g.Reason}
			v, err := proto.MarshalOptions{Deterministic: true}.Marshal(g)
			if err != nil {
				panic("BUG: cannot marshal gap: " + err.Error())
			}
			cl.Produce(ctx, &kgo.Record{Topic: schemas.TopicTrades, Key: []byte(rec.Symbol), Value: v,
				Headers: []kgo.RecordHeader{{Key: HeaderSource, Value: nameBytes}, {Key: HeaderSeq, Value: seq}, {Key: HeaderKind, Value: []byte(KindGap)}}}, promise)
		} else if sr := rec.Side; sr != nil {
			// A side record (pipeline/sidetopic) goes to its topic in the
			// same transaction, numbered like the source's other records.
			hs := make([]kgo.RecordHeader, 0, len(sr.Headers)+2)
			for _, h := range sr.Headers {
				hs = append(hs, kgo.RecordHeader{Key: h.Key, Value: h.Value})
			}
			hs = append(hs, kgo.RecordHeader{Key: HeaderSource, Value: nameBytes}, kgo.RecordHeader{Key: HeaderSeq, Value: seq})
			cl.Produce(ctx, &kgo.Record{Topic: sr.Topic, Key: sr.Key, Value: sr.Value, Headers: hs}, promise)
		} else {
			cl.Produce(ctx, &kgo.Record{
				Topic: cmp.Or(rec.DLQ, schemas.TopicTradesDLQ), Key: nameBytes, Value: rec.Raw,
				Headers: []kgo.RecordHeader{{Key: "reason", Value: []byte(rec.Reason)}, {Key: HeaderSource, Value: nameBytes}, {Key: HeaderSeq, Value: seq}},
			}, promise)
			stats.Reject(name, rec.Reason)
		}
		pending++
		if pending >= cfg.TxnRecords || time.Since(txnStart) >= cfg.TxnInterval {
			if err := commit(false); err != nil {
				stats.SetState(name, "failed", err)
				return err
			}
		}
	}
}

// transactionalID builds a stable transactional id from a prefix and a name,
// hashing names too long for comfort.
func transactionalID(prefix, name string) string {
	if len(name) <= 120 {
		return prefix + name
	}
	h := sha256.Sum256([]byte(name))
	return prefix + hex.EncodeToString(h[:12])
}

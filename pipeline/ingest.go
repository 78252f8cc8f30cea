package pipeline

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"
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
	// KindEnd marks a source's end-of-input record: one per partition of
	// mi.trades.v1, after the source's last record (IngestConfig.EndMarkers).
	KindEnd = "end"
	// HeaderRun is the end record's run: the set of sources it belongs to.
	HeaderRun = "run"
)

// IsGap reports whether a record of mi.trades.v1 is a gap record.
func IsGap(r *kgo.Record) bool { return recordKind(r) == KindGap }

// IsEnd reports whether a record of mi.trades.v1 is a source's end of
// input.
func IsEnd(r *kgo.Record) bool { return recordKind(r) == KindEnd }

func recordKind(r *kgo.Record) string {
	for _, h := range r.Headers {
		if h.Key == HeaderKind {
			return string(h.Value)
		}
	}
	return ""
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
	fence, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.TransactionalID(transactionalID("mi-ingest-", name)), transactionProtocol, kgo.TransactionTimeout(TransactionTimeout))
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
	// EndRun, when set, makes the end of input write, in the last
	// transaction, an end record (header "kind: end", header "run" =
	// EndRun, empty value) to every partition of mi.trades.v1, so the
	// operators know this source sent its last trade there. EndRun is
	// "N:key", N the number of the run's sources and key names their set;
	// the operators close a partition's last minute once N have ended.
	EndRun string
}

// Ingest reads src and writes its trades to mi.trades.v1 (key = symbol), its
// gaps to mi.trades.v1 too (key = symbol, header "kind: gap", value a
// schemas.Gap whose source is the source's name unless the source set one),
// its side records to their topics (see pipeline/sidetopic) and its rejected
// inputs to mi.trades.dlq.v1 or the DLQ the record names (reason in header
// "reason"), each with "source" and "seq" headers, in transactions; after
// each one commits, a second transaction writes the source checkpoint that
// counts them. It skips the resume.Records records already committed by an
// earlier run. It returns nil when a finite source is exhausted and
// committed, or ctx's error. It is Drive with the Kafka destination.
func Ingest(ctx context.Context, cfg IngestConfig, src sources.Source, resume Checkpoint) error {
	dcfg := DriveConfig{Speed: cfg.Speed, Realtime: cfg.Realtime, Live: cfg.Live, Stats: cfg.Stats, Logger: cfg.Logger}
	if resume.Finished {
		return Drive(ctx, dcfg, src, resume, nil)
	}
	dst, err := newIngestDest(cfg, src.Name(), resume)
	if err != nil {
		return err
	}
	defer dst.cl.Close()
	// A stop leaves no transaction open (see Process); the records it held
	// are not counted in the checkpoint, so they are produced again.
	defer func() {
		actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = dst.cl.AbortBufferedRecords(actx)
		_ = dst.cl.EndTransaction(actx, kgo.TryAbort)
	}()
	return Drive(ctx, dcfg, src, resume, dst)
}

// ingestDest is the Kafka destination of Drive: the records of one source
// in transactions, each followed by a checkpoint transaction.
type ingestDest struct {
	cfg       IngestConfig
	cl        *kgo.Client
	name      []byte
	mu        sync.Mutex
	firstErr  error
	committed int64 // records counted by the last checkpoint
	inTxn     bool
	pending   int
	txnStart  time.Time
}

func newIngestDest(cfg IngestConfig, name string, resume Checkpoint) (*ingestDest, error) {
	if cfg.TxnRecords <= 0 {
		cfg.TxnRecords = 5000
	}
	if cfg.TxnInterval <= 0 {
		cfg.TxnInterval = 200 * time.Millisecond
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.TransactionalID(transactionalID("mi-ingest-", name)+cfg.TxnSuffix),
		transactionProtocol,
		kgo.TransactionTimeout(TransactionTimeout),
		kgo.ProducerLinger(2*time.Millisecond),
		kgo.MaxBufferedRecords(100_000),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.ProducerBatchMaxBytes(4<<20),
		kgo.RecordPartitioner(endPartitioner{kgo.StickyKeyPartitioner(nil)}),
	)
	if err != nil {
		return nil, fmt.Errorf("cannot create Kafka producer for %s: %w", name, err)
	}
	return &ingestDest{cfg: cfg, cl: cl, name: []byte(name), committed: resume.Records}, nil
}

func (d *ingestDest) promise(_ *kgo.Record, err error) {
	if err != nil {
		d.mu.Lock()
		if d.firstErr == nil {
			d.firstErr = err
		}
		d.mu.Unlock()
	}
}

// commit ends the open transaction of records and then, in a second
// transaction, writes the checkpoint that counts them. Two transactions,
// in this order, because a broker that crashes while committing may
// commit some partitions of a transaction and not others: a checkpoint
// must never be committed without the records it counts. Records whose
// checkpoint was lost are produced again on restart with the same "seq"
// header, and the operators drop them as re-deliveries.
func (d *ingestDest) commit(ctx context.Context, finished bool) error {
	cl := d.cl
	if d.inTxn {
		if err := cl.Flush(ctx); err != nil {
			return fmt.Errorf("cannot flush: %w", err)
		}
		d.mu.Lock()
		perr := d.firstErr
		d.mu.Unlock()
		if perr != nil {
			_ = cl.EndTransaction(ctx, kgo.TryAbort)
			return fmt.Errorf("cannot produce: %w", perr)
		}
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			return fmt.Errorf("cannot commit transaction: %w", err)
		}
		d.committed += int64(d.pending)
		d.inTxn, d.pending = false, 0
	} else if !finished {
		return nil
	}
	if err := cl.BeginTransaction(); err != nil {
		return fmt.Errorf("cannot begin transaction: %w", err)
	}
	cp, _ := json.Marshal(Checkpoint{Records: d.committed, StartNs: d.cfg.StartNs, Finished: finished})
	cl.Produce(ctx, &kgo.Record{Topic: schemas.TopicSourceOffsets, Key: d.name, Value: cp}, d.promise)
	if err := cl.Flush(ctx); err != nil {
		return fmt.Errorf("cannot flush: %w", err)
	}
	if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return fmt.Errorf("cannot commit checkpoint: %w", err)
	}
	if d.cfg.Progress != nil {
		d.cfg.Progress(d.committed)
	}
	return nil
}

// Put implements Destination.
func (d *ingestDest) Put(ctx context.Context, rec sources.Record, pos int64) error {
	cl := d.cl
	if !d.inTxn {
		if err := cl.BeginTransaction(); err != nil {
			return fmt.Errorf("cannot begin transaction: %w", err)
		}
		d.inTxn, d.txnStart = true, time.Now()
	}
	if pos != d.committed+int64(d.pending) {
		panic(fmt.Sprintf("BUG: record %d of %s put after %d committed and %d pending", pos, d.name, d.committed, d.pending))
	}
	nameBytes := d.name
	seq := []byte(strconv.FormatInt(pos, 10))
	if t := rec.Trade; t != nil {
		v := schemas.AppendTrade(make([]byte, 0, 160), t)
		cl.Produce(ctx, &kgo.Record{Topic: schemas.TopicTrades, Key: []byte(t.Symbol), Value: v,
			Headers: []kgo.RecordHeader{{Key: HeaderSource, Value: nameBytes}, {Key: HeaderSeq, Value: seq}}}, d.promise)
	} else if g := rec.Gap; g != nil {
		// A gap goes to the symbol's partition of mi.trades.v1, in order
		// with its trades, so the operators owning the symbol see it
		// in the same transactions and checkpoints (docs/topics.md).
		g = &schemas.Gap{Source: cmp.Or(g.Source, string(nameBytes)), FromNs: g.FromNs, ToNs: g.ToNs, Reason: g.Reason}
		v, err := proto.MarshalOptions{Deterministic: true}.Marshal(g)
		if err != nil {
			panic("BUG: cannot marshal gap: " + err.Error())
		}
		cl.Produce(ctx, &kgo.Record{Topic: schemas.TopicTrades, Key: []byte(rec.Symbol), Value: v,
			Headers: []kgo.RecordHeader{{Key: HeaderSource, Value: nameBytes}, {Key: HeaderSeq, Value: seq}, {Key: HeaderKind, Value: []byte(KindGap)}}}, d.promise)
	} else if sr := rec.Side; sr != nil {
		// A side record (pipeline/sidetopic) goes to its topic in the
		// same transaction, numbered like the source's other records.
		hs := make([]kgo.RecordHeader, 0, len(sr.Headers)+2)
		for _, h := range sr.Headers {
			hs = append(hs, kgo.RecordHeader{Key: h.Key, Value: h.Value})
		}
		hs = append(hs, kgo.RecordHeader{Key: HeaderSource, Value: nameBytes}, kgo.RecordHeader{Key: HeaderSeq, Value: seq})
		cl.Produce(ctx, &kgo.Record{Topic: sr.Topic, Key: sr.Key, Value: sr.Value, Headers: hs}, d.promise)
	} else {
		cl.Produce(ctx, &kgo.Record{
			Topic: cmp.Or(rec.DLQ, schemas.TopicTradesDLQ), Key: nameBytes, Value: rec.Raw,
			Headers: []kgo.RecordHeader{{Key: "reason", Value: []byte(rec.Reason)}, {Key: HeaderSource, Value: nameBytes}, {Key: HeaderSeq, Value: seq}},
		}, d.promise)
	}
	d.pending++
	if d.pending >= d.cfg.TxnRecords || time.Since(d.txnStart) >= d.cfg.TxnInterval {
		return d.commit(ctx, false)
	}
	return nil
}

// Commit implements Destination: the open transaction and its checkpoint.
func (d *ingestDest) Commit(ctx context.Context) error { return d.commit(ctx, false) }

// Due implements Destination: an open transaction is due TxnInterval after
// its first record.
func (d *ingestDest) Due() (time.Time, bool) {
	return d.txnStart.Add(d.cfg.TxnInterval), d.inTxn
}

// End implements Destination: the end records (EndMarkers), the last
// transaction and a checkpoint saying the source was read to its end, so a
// restart does not read it again.
func (d *ingestDest) End(ctx context.Context) error {
	if d.cfg.EndRun != "" {
		td, err := kadm.NewClient(d.cl).ListTopics(ctx, schemas.TopicTrades)
		if err == nil {
			err = td.Error()
		}
		if err != nil {
			return fmt.Errorf("cannot list the partitions of %s: %w", schemas.TopicTrades, err)
		}
		if !d.inTxn {
			if err := d.cl.BeginTransaction(); err != nil {
				return fmt.Errorf("cannot begin transaction: %w", err)
			}
			d.inTxn, d.txnStart = true, time.Now()
		}
		// The end records carry the next position as their sequence: a
		// crash before the checkpoint produces them again with the same
		// one, and the operators drop the copies as re-deliveries.
		seq := []byte(strconv.FormatInt(d.committed+int64(d.pending), 10))
		for _, pd := range td[schemas.TopicTrades].Partitions.Sorted() {
			d.cl.Produce(ctx, &kgo.Record{Topic: schemas.TopicTrades, Partition: pd.Partition, Value: []byte{},
				Headers: []kgo.RecordHeader{{Key: HeaderSource, Value: d.name}, {Key: HeaderSeq, Value: seq}, {Key: HeaderKind, Value: []byte(KindEnd)},
					{Key: HeaderRun, Value: []byte(d.cfg.EndRun)}}}, d.promise)
		}
	}
	return d.commit(ctx, true)
}

// endPartitioner partitions records as the partitioner it wraps, except
// end records, which go to the partition they name.
type endPartitioner struct{ kgo.Partitioner }

func (p endPartitioner) ForTopic(topic string) kgo.TopicPartitioner {
	return endTopicPartitioner{p.Partitioner.ForTopic(topic)}
}

type endTopicPartitioner struct{ kgo.TopicPartitioner }

func (p endTopicPartitioner) RequiresConsistency(r *kgo.Record) bool {
	return IsEnd(r) || p.TopicPartitioner.RequiresConsistency(r)
}

func (p endTopicPartitioner) Partition(r *kgo.Record, n int) int {
	if IsEnd(r) {
		return int(r.Partition) % n
	}
	return p.TopicPartitioner.Partition(r, n)
}

// TransactionTimeout is the transaction timeout of every transactional
// producer of the pipeline. A producer that dies with a transaction open
// (kill -9, a lost node) holds back every read_committed reader of the
// partitions it wrote — the views, the Parquet sink, the alert outbox, the
// operators reading mi.trades.v1 — until the broker aborts the transaction,
// which is this long after its start (plus the broker's
// transaction.abort.timed.out.transaction.cleanup.interval.ms, 10 s by
// default), unless a restart with the same transactional id fences it
// first. So it is short, as Kafka Streams' 10 s under exactly-once: a
// transaction here lasts one poll (outputs), one checkpoint (state) or 200
// ms of source records.
const TransactionTimeout = 15 * time.Second

// transactionProtocol caps the wire versions of the pipeline's
// transactional producers at Kafka 3.9's, before KIP-890 part 2
// ("transactions v2", the default of new Kafka 4.x clusters, which bumps
// the producer epoch at every commit). Against such a cluster franz-go
// v1.22 keeps the old sequence numbers of a partition the previous
// transaction did not write to, the broker refuses the batch
// (OUT_OF_ORDER_SEQUENCE_NUMBER) and the client recovers by reloading its
// producer id: nothing is lost, but a transaction takes seconds and the
// ingest ran four times slower on the three-node test cluster. Every 4.x
// broker serves the earlier protocol, with the same guarantees the
// pipeline relies on (fencing by transactional id, read_committed).
var transactionProtocol = kgo.MaxVersions(kversion.V3_9_0())

// transactionalID builds a stable transactional id from a prefix and a name,
// hashing names too long for comfort.
func transactionalID(prefix, name string) string {
	if len(name) <= 120 {
		return prefix + name
	}
	h := sha256.Sum256([]byte(name))
	return prefix + hex.EncodeToString(h[:12])
}

package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/schemas"
)

// PositionKey is the key of the record in each mi.state.v1 partition that
// says which input the partition's state reflects (see position).
const PositionKey = "~position"

// ProcessGroup is the consumer group of the operators: every instance of
// the process role joins it, and the group splits the partitions of
// mi.trades.v1 between them.
const ProcessGroup = "mi-operators"

// AlertStatePrefix starts the keys of mi.state.v1 that hold the alert
// detector's state of one symbol (the rest of the key); the value is
// operators.AlertDetector.AppendSymbolState's JSON.
const AlertStatePrefix = operators.ReservedPrefix + "alerts|"

// DecisionStatePrefix starts the keys of mi.state.v1 that hold the hourly
// decision's state of one symbol (the rest of the key); the value is
// operators.HourlyDecision.AppendSymbolState's JSON.
const DecisionStatePrefix = operators.ReservedPrefix + "decision|"

// ProcessConfig configures the operator loop.
type ProcessConfig struct {
	Brokers []string
	// Group is the consumer group; every instance of the operator role joins
	// it and the group splits the partitions of mi.trades.v1 between them.
	Group string
	// InstanceID makes the transactional ids unique per instance; it is
	// also the instance's static membership id in the consumer group, so an
	// instance restarted after a crash takes its partitions back at once
	// instead of waiting for its dead incarnation's session to expire.
	InstanceID string
	Operators  operators.Config
	Stats      *Stats
	Logger     *slog.Logger
	// TxnSuffix is appended to the transactional ids; see RunConfig.
	TxnSuffix string
	// CheckpointInterval is how often the operator state, positions and
	// consumer offsets are committed (outputs are committed every poll).
	// Longer means less state written; after a crash the operators replay
	// at most this much input, re-emitting identical outputs. Default 1s.
	CheckpointInterval time.Duration
	// MaxPollRecords bounds the records handled in one transaction.
	MaxPollRecords int
	// SessionTimeout is how long the group waits for a silent instance
	// (killed, partitioned away) before giving its partitions to the
	// others; 0 is franz-go's default, 45 s.
	SessionTimeout time.Duration
}

// ProcessStats are the operator loop's counters.
type ProcessStats struct {
	Trades atomic.Uint64
	// Gaps counts the source gaps handed to the engines (gap records of
	// mi.trades.v1; never counted in Trades).
	Gaps      atomic.Uint64
	Candles   atomic.Uint64
	Documents atomic.Uint64
	// SignalChanges counts published signal changes (mi.signal-changes.v1).
	SignalChanges atomic.Uint64
	// Events counts published alert events (mi.events.v1).
	Events       atomic.Uint64
	Rejected     atomic.Uint64
	Transactions atomic.Uint64
	Aborts       atomic.Uint64
	Restores     atomic.Uint64
	// Redelivered counts input records dropped because their state already
	// reflects them (a record produced again after a crash).
	Redelivered atomic.Uint64
}

// position is what one partition's state reflects: the next input offset to
// process and, per source, the last source sequence number processed. It is
// written with the state, in the same single-partition transaction, so the
// two always agree.
type position struct {
	Offset int64            `json:"offset"`
	Seq    map[string]int64 `json:"seq,omitempty"`
	// EndRun and Ended: the run (ProcessConfig.EndRun) whose end records
	// this partition has processed, and their sources, sorted.
	EndRun string   `json:"endRun,omitempty"`
	Ended  []string `json:"ended,omitempty"`
}

// partitionState is the engine, alert detector, hourly decision and
// position of one input partition.
type partitionState struct {
	eng     *operators.Engine
	det     *operators.AlertDetector
	dec     *operators.HourlyDecision
	events  []operators.AlertEvent // scratch
	pos     position
	dirty   bool // processed records since the last checkpoint
	rewound bool // the consumer position was checked against pos
}

func (p *processor) anyDirty() bool {
	for _, ps := range p.parts {
		if ps.dirty {
			return true
		}
	}
	return false
}

// processor holds the per-partition engines of one operator instance.
type processor struct {
	cfg     ProcessConfig
	sess    *kgo.GroupTransactSession
	out     *kgo.Client
	parts   map[int32]*partitionState
	stats   *ProcessStats
	log     *slog.Logger
	dropAll atomic.Bool
	marshal proto.MarshalOptions

	lastCheckpoint time.Time
	intern         schemas.Interner
	lastDoc        []byte // the document just emitted, for its minute close

	mu      sync.Mutex
	prodErr error
}

// Process runs the operator loop until ctx ends. It consumes mi.trades.v1
// in the consumer group (read committed), runs one operators.Engine per
// partition, an operators.AlertDetector over that engine's documents and
// an operators.HourlyDecision over its documents and candles, and commits:
//
//  1. every poll, the outputs — candles, documents, minute-close documents,
//     signal changes, alert events and dead letters — in a transaction of
//     an output producer;
//  2. every CheckpointInterval, in a transaction of the group session, the
//     state of every symbol the engines, detectors and decisions changed since the
//     last checkpoint and each partition's position record, all in
//     mi.state.v1 under the input's partition number, together with the
//     consumer offsets.
//
// A crash, or a broker that commits only some partitions of a transaction,
// can leave outputs committed whose state is not; the restarted operator
// restores the last checkpoint and processes the same input again, which
// yields byte-identical outputs (the operators are deterministic). A
// partition's state and its position are in one partition of one topic, so
// they commit or abort together: the state never claims input it does not
// reflect. After a rebalance or an aborted checkpoint the instance drops its
// engines, restores them from mi.state.v1 and rewinds its consumer to the
// restored positions.
func Process(ctx context.Context, cfg ProcessConfig, stats *ProcessStats) error {
	if cfg.Group == "" {
		cfg.Group = ProcessGroup
	}
	if cfg.InstanceID == "" {
		cfg.InstanceID = "local"
	}
	if cfg.MaxPollRecords <= 0 {
		cfg.MaxPollRecords = 20_000
	}
	if cfg.CheckpointInterval <= 0 {
		cfg.CheckpointInterval = time.Second
	}
	if stats == nil {
		stats = &ProcessStats{}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	p := &processor{cfg: cfg, parts: map[int32]*partitionState{}, stats: stats, log: log,
		marshal: proto.MarshalOptions{Deterministic: true}}
	// Newly assigned partitions have no engine and are restored when their
	// first records arrive; losing partitions invalidates the in-memory state
	// past the last checkpoint, so every engine is rebuilt.
	onChange := func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
		if len(m[schemas.TopicTrades]) > 0 {
			p.dropAll.Store(true)
		}
	}
	var opts []kgo.Opt
	if cfg.SessionTimeout > 0 {
		opts = append(opts, kgo.SessionTimeout(cfg.SessionTimeout))
	}
	sess, err := kgo.NewGroupTransactSession(append(opts,
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.ConsumerGroup(cfg.Group),
		kgo.InstanceID(cfg.InstanceID),
		kgo.ConsumeTopics(schemas.TopicTrades),
		kgo.TransactionalID(transactionalID("mi-operators-", cfg.InstanceID)+cfg.TxnSuffix),
		transactionProtocol,
		kgo.TransactionTimeout(TransactionTimeout),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.RequireStableFetchOffsets(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.OnPartitionsRevoked(onChange),
		kgo.OnPartitionsLost(onChange),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchMaxBytes(MaxRecordBytes),
		kgo.FetchMaxPartitionBytes(MaxRecordBytes),
		kgo.ProducerLinger(2*time.Millisecond),
		kgo.FetchMaxWait(200*time.Millisecond),
	)...)
	if err != nil {
		return fmt.Errorf("cannot create operator consumer: %w", err)
	}
	defer sess.Close()
	out, err := kgo.NewClient(
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.TransactionalID(transactionalID("mi-operators-out-", cfg.InstanceID)+cfg.TxnSuffix),
		transactionProtocol,
		kgo.TransactionTimeout(TransactionTimeout),
		kgo.ProducerLinger(2*time.Millisecond),
		kgo.MaxBufferedRecords(200_000),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.ProducerBatchMaxBytes(4<<20),
	)
	if err != nil {
		return fmt.Errorf("cannot create operator output producer: %w", err)
	}
	defer out.Close()
	// Load both producer ids now: that fences a crashed incarnation with the
	// same transactional ids and aborts its open transactions, whose
	// records would otherwise hold back every read_committed reader (the
	// state restore first) until the transaction timeout.
	for _, cl := range []*kgo.Client{sess.Client(), out} {
		if _, _, err := cl.ProducerID(ctx); err != nil {
			return fmt.Errorf("cannot initialize the operators' transactional producers: %w", err)
		}
	}
	// A stop leaves no transaction open: an open one would hold back every
	// read_committed reader of its partitions after a restart (the embedded
	// broker keeps it across the restart, and the next run uses new ids)
	// until the transaction timeout. What it held is processed again.
	defer func() {
		actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = out.AbortBufferedRecords(actx)
		_ = out.EndTransaction(actx, kgo.TryAbort)
		_, _ = sess.End(actx, kgo.TryAbort)
	}()
	p.sess, p.out = sess, out
	for {
		// Polls block until records arrive; the bounded context lets an
		// idle loop still commit its pending checkpoint.
		pctx, cancel := context.WithTimeout(ctx, cfg.CheckpointInterval)
		fs := sess.PollRecords(pctx, cfg.MaxPollRecords)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if fs.IsClientClosed() {
			return nil
		}
		var ferr error
		fs.EachError(func(t string, part int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				ferr = fmt.Errorf("cannot fetch %s[%d]: %w", t, part, err)
			}
		})
		if ferr != nil {
			log.Warn("fetch failed; retrying", "err", ferr)
			continue
		}
		if fs.NumRecords() == 0 {
			if p.anyDirty() && time.Since(p.lastCheckpoint) >= cfg.CheckpointInterval {
				if err := p.checkpoint(ctx, sess); err != nil {
					return err
				}
			}
			continue
		}
		if p.dropAll.Swap(false) {
			clear(p.parts)
		}
		if err := p.step(ctx, sess, fs); err != nil {
			return err
		}
	}
}

// step processes one poll: outputs in one transaction, then state, positions
// and offsets in another.
func (p *processor) step(ctx context.Context, sess *kgo.GroupTransactSession, fs kgo.Fetches) error {
	if err := p.out.BeginTransaction(); err != nil {
		return fmt.Errorf("cannot begin output transaction: %w", err)
	}
	var perr error
	fs.EachPartition(func(fp kgo.FetchTopicPartition) {
		if perr == nil {
			perr = p.handle(ctx, fp)
		}
	})
	if perr == nil {
		perr = p.takeErr()
	}
	if perr != nil {
		_ = p.out.EndTransaction(ctx, kgo.TryAbort)
		return perr
	}
	if err := p.out.Flush(ctx); err != nil {
		return fmt.Errorf("cannot flush outputs: %w", err)
	}
	if err := p.takeErr(); err != nil {
		_ = p.out.EndTransaction(ctx, kgo.TryAbort)
		return err
	}
	if err := p.out.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return fmt.Errorf("cannot commit outputs: %w", err)
	}

	if time.Since(p.lastCheckpoint) < p.cfg.CheckpointInterval {
		return nil
	}
	return p.checkpoint(ctx, sess)
}

// checkpoint commits the state every engine changed since the last
// checkpoint, with each partition's position and the consumer offsets, in
// one transaction.
func (p *processor) checkpoint(ctx context.Context, sess *kgo.GroupTransactSession) error {
	p.lastCheckpoint = time.Now()
	if err := sess.Begin(); err != nil {
		return fmt.Errorf("cannot begin state transaction: %w", err)
	}
	parts := make([]int32, 0, len(p.parts))
	for part, ps := range p.parts {
		if ps.dirty {
			parts = append(parts, part)
		}
	}
	slices.Sort(parts)
	for _, part := range parts {
		ps := p.parts[part]
		for _, key := range ps.eng.DirtyKeys() {
			sess.Produce(ctx, &kgo.Record{Topic: schemas.TopicState, Partition: part, Key: []byte(key), Value: ps.eng.AppendState(nil, key)}, p.promise)
		}
		for _, sym := range ps.det.DirtySymbols() {
			sess.Produce(ctx, &kgo.Record{Topic: schemas.TopicState, Partition: part, Key: []byte(AlertStatePrefix + sym), Value: ps.det.AppendSymbolState(nil, sym)}, p.promise)
		}
		for _, sym := range ps.dec.DirtySymbols() {
			sess.Produce(ctx, &kgo.Record{Topic: schemas.TopicState, Partition: part, Key: []byte(DecisionStatePrefix + sym), Value: ps.dec.AppendSymbolState(nil, sym)}, p.promise)
		}
		pos, _ := json.Marshal(ps.pos)
		sess.Produce(ctx, &kgo.Record{Topic: schemas.TopicState, Partition: part, Key: []byte(PositionKey), Value: pos}, p.promise)
	}
	committed, err := sess.End(ctx, kgo.TryCommit)
	if err != nil {
		return fmt.Errorf("cannot commit operator state: %w", err)
	}
	if perr := p.takeErr(); perr != nil {
		return perr
	}
	if !committed {
		p.stats.Aborts.Add(1)
		p.log.Info("state transaction aborted (rebalance); restoring operator state from the changelog")
		clear(p.parts)
		return nil
	}
	for _, part := range parts {
		p.parts[part].eng.ClearDirty()
		p.parts[part].det.ClearDirty()
		p.parts[part].dec.ClearDirty()
		p.parts[part].dirty = false
	}
	p.stats.Transactions.Add(1)
	return nil
}

// handle runs the records of one partition through its engine.
func (p *processor) handle(ctx context.Context, fp kgo.FetchTopicPartition) error {
	ps, err := p.partition(ctx, fp.Partition)
	if err != nil {
		return err
	}
	if !ps.rewound && len(fp.Records) > 0 && fp.Records[0].Offset > ps.pos.Offset {
		// The consumer is ahead of the restored state (engines dropped after
		// a rebalance or an aborted checkpoint): go back to the position the
		// state reflects and process from there. Once per restore, so a log
		// whose start moved past the position cannot loop.
		ps.rewound = true
		p.sess.Client().SetOffsets(map[string]map[int32]kgo.EpochOffset{
			schemas.TopicTrades: {fp.Partition: {Epoch: -1, Offset: ps.pos.Offset}},
		})
		return nil
	}
	ps.rewound = true
	var t schemas.Trade
	for _, r := range fp.Records {
		if r.Offset < ps.pos.Offset {
			p.stats.Redelivered.Add(1) // already reflected by the restored state
			continue
		}
		ps.pos.Offset = r.Offset + 1
		if src, seq, ok := sourceSeq(r, &p.intern); ok {
			if last, seen := ps.pos.Seq[src]; seen && seq <= last {
				p.stats.Redelivered.Add(1) // produced again after an ingest crash
				continue
			}
			if ps.pos.Seq == nil {
				ps.pos.Seq = map[string]int64{}
			}
			ps.pos.Seq[src] = seq
		}
		if IsGap(r) {
			p.handleGap(ps, r)
			continue
		}
		if IsEnd(r) {
			p.handleEnd(ps, r, fp.Partition)
			continue
		}
		if err := schemas.UnmarshalTrade(r.Value, &t, &p.intern); err != nil {
			p.dlq(r.Value, "malformed record: "+err.Error(), "")
			continue
		}
		p.stats.Trades.Add(1)
		ps.eng.Push(&t)
	}
	ps.dirty = true
	return nil
}

// handleGap hands a gap record to the partition's engine; a gap it cannot
// decode or the engine refuses is dead-lettered.
func (p *processor) handleGap(ps *partitionState, r *kgo.Record) {
	src, _, _ := sourceSeq(r, &p.intern)
	var g schemas.Gap
	if err := proto.Unmarshal(r.Value, &g); err != nil {
		p.dlq(r.Value, "malformed record: gap: "+err.Error(), src)
		return
	}
	if err := ps.eng.PushGap(string(r.Key), &g); err != nil {
		p.dlq(r.Value, err.Error(), src)
		return
	}
	p.stats.Gaps.Add(1)
}

// handleEnd counts a source's end record; when all the sources its run
// names have ended in the partition, its input is over: the engine closes its last
// minute (operators.Engine.End), so the last trades get their candle.
func (p *processor) handleEnd(ps *partitionState, r *kgo.Record, part int32) {
	src, _, _ := sourceSeq(r, &p.intern)
	run := ""
	for _, h := range r.Headers {
		if h.Key == HeaderRun {
			run = string(h.Value)
		}
	}
	if run != ps.pos.EndRun {
		// The first end record of another run (other sources): the ends
		// of an earlier run do not count for this one.
		ps.pos.EndRun, ps.pos.Ended = run, nil
	}
	if i, found := slices.BinarySearch(ps.pos.Ended, src); !found {
		ps.pos.Ended = slices.Insert(ps.pos.Ended, i, src)
	}
	// The run header is "N:key" (RunConfig): the run has N sources. The
	// instance needs no configuration of its own for this, so every
	// instance of a group, reading sources or not, closes the same minute.
	n, _, _ := strings.Cut(run, ":")
	if after, err := strconv.Atoi(n); err == nil && after > 0 && len(ps.pos.Ended) == after {
		ps.eng.End()
		p.log.Info("end of input: the last minute is closed", "partition", part, "sources", ps.pos.Ended)
	}
}

// sourceSeq reads the ingest headers of a record; the source name comes
// from in, so it is allocated once per source.
func sourceSeq(r *kgo.Record, in *schemas.Interner) (string, int64, bool) {
	var src []byte
	var seq int64 = -1
	for _, h := range r.Headers {
		switch h.Key {
		case HeaderSource:
			src = h.Value
		case HeaderSeq:
			if n, err := strconv.ParseInt(string(h.Value), 10, 64); err == nil {
				seq = n
			}
		}
	}
	if src == nil || seq < 0 {
		return "", 0, false
	}
	return in.String(src), seq, true
}

// partition returns the state of a partition, restoring it from the
// changelog if this instance does not hold it.
func (p *processor) partition(ctx context.Context, part int32) (*partitionState, error) {
	if ps := p.parts[part]; ps != nil {
		return ps, nil
	}
	ps := &partitionState{det: operators.NewAlertDetector(), dec: operators.NewHourlyDecision(p.emitEvent)}
	e := operators.NewEngine(p.cfg.Operators, operators.Emit{
		Candle: func(c *schemas.Candle) {
			p.emitCandle(c)
			ps.dec.PushCandle(c)
		},
		Document: func(d *schemas.IntelligenceDocument) {
			p.emitDocument(d)
			ps.events = ps.det.Push(d, ps.events[:0])
			for _, ev := range ps.events {
				p.emitEvent(ev)
			}
			ps.dec.PushDocument(d)
		},
		Reject:       p.emitReject,
		SignalChange: p.emitSignalChange,
		MinuteClose:  p.emitMinuteClose,
	})
	ps.eng = e
	last := map[string][]byte{}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	err := ReadCommitted(rctx, p.cfg.Brokers, schemas.TopicState, []int32{part}, func(r *kgo.Record) {
		last[string(r.Key)] = r.Value
	})
	if err != nil {
		return nil, fmt.Errorf("cannot restore operator state of partition %d: %w", part, err)
	}
	if v, ok := last[PositionKey]; ok {
		if err := json.Unmarshal(v, &ps.pos); err != nil {
			return nil, fmt.Errorf("cannot restore the position of partition %d: %w", part, err)
		}
		delete(last, PositionKey)
	}
	keys := make([]string, 0, len(last))
	for k := range last {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if sym, ok := strings.CutPrefix(k, AlertStatePrefix); ok {
			if err := ps.det.RestoreSymbolState(sym, last[k]); err != nil {
				return nil, fmt.Errorf("cannot restore alert detector state %q of partition %d: %w", k, part, err)
			}
			continue
		}
		if sym, ok := strings.CutPrefix(k, DecisionStatePrefix); ok {
			if err := ps.dec.RestoreSymbolState(sym, last[k]); err != nil {
				return nil, fmt.Errorf("cannot restore hourly decision state %q of partition %d: %w", k, part, err)
			}
			continue
		}
		if err := e.RestoreState(k, last[k]); err != nil {
			return nil, fmt.Errorf("cannot restore operator state %q of partition %d: %w", k, part, err)
		}
	}
	p.stats.Restores.Add(1)
	if len(keys) > 0 {
		p.log.Info("operator state restored", "partition", part, "keys", len(keys), "offset", ps.pos.Offset)
	}
	p.parts[part] = ps
	return ps, nil
}

func (p *processor) promise(r *kgo.Record, err error) {
	if err != nil {
		p.mu.Lock()
		if p.prodErr == nil {
			p.prodErr = fmt.Errorf("cannot produce to %s: %w", r.Topic, err)
		}
		p.mu.Unlock()
	}
}

func (p *processor) takeErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.prodErr
	p.prodErr = nil
	return err
}

func (p *processor) emit(r *kgo.Record) {
	p.out.Produce(context.Background(), r, p.promise)
}

func (p *processor) emitCandle(c *schemas.Candle) {
	v, err := p.marshal.Marshal(c)
	if err != nil {
		panic("BUG: cannot marshal candle: " + err.Error())
	}
	p.stats.Candles.Add(1)
	p.emit(&kgo.Record{Topic: schemas.TopicCandles, Key: []byte(c.Symbol + "|" + c.Venue), Value: v})
}

func (p *processor) emitDocument(d *schemas.IntelligenceDocument) {
	v, err := p.marshal.Marshal(d)
	if err != nil {
		panic("BUG: cannot marshal document: " + err.Error())
	}
	p.stats.Documents.Add(1)
	p.lastDoc = v
	p.emit(&kgo.Record{Topic: schemas.TopicSignals, Key: []byte(d.Symbol + "|" + d.Window), Value: v})
}

// emitMinuteClose publishes the document just emitted again on
// mi.signal-minutes.v1, which is not compacted: readers that need every
// minute's document (the Parquet sink) get it however far they lag.
func (p *processor) emitMinuteClose(d *schemas.IntelligenceDocument) {
	p.emit(&kgo.Record{Topic: schemas.TopicSignalMinutes, Key: []byte(d.Symbol + "|" + d.Window), Value: p.lastDoc})
}

// emitEvent publishes an alert event on mi.events.v1 (key: symbol; value:
// the event's JSON).
func (p *processor) emitEvent(e operators.AlertEvent) {
	v, err := json.Marshal(e)
	if err != nil {
		panic("BUG: cannot marshal alert event: " + err.Error())
	}
	p.stats.Events.Add(1)
	p.emit(&kgo.Record{Topic: schemas.TopicEvents, Key: []byte(e.Symbol), Value: v})
}

func (p *processor) emitSignalChange(c *schemas.SignalChange) {
	v, err := p.marshal.Marshal(c)
	if err != nil {
		panic("BUG: cannot marshal signal change: " + err.Error())
	}
	p.stats.SignalChanges.Add(1)
	p.emit(&kgo.Record{Topic: schemas.TopicSignalChanges, Key: []byte(c.Symbol + "|" + c.Window), Value: v})
}

func (p *processor) emitReject(t *schemas.Trade, reason string) {
	v, err := p.marshal.Marshal(t)
	if err != nil {
		panic("BUG: cannot marshal trade: " + err.Error())
	}
	p.dlq(v, reason, t.Source)
}

func (p *processor) dlq(value []byte, reason, source string) {
	p.stats.Rejected.Add(1)
	if p.cfg.Stats != nil {
		p.cfg.Stats.Reject(source, reason)
	}
	p.emit(&kgo.Record{
		Topic: schemas.TopicTradesDLQ, Key: []byte(source), Value: value,
		Headers: []kgo.RecordHeader{{Key: "reason", Value: []byte(reason)}, {Key: "source", Value: []byte(source)}, {Key: "stage", Value: []byte("operators")}},
	})
}

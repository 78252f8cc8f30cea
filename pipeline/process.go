package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/schemas"
)

// ProcessConfig configures the operator loop.
type ProcessConfig struct {
	Brokers []string
	// Group is the consumer group; every instance of the operator role joins
	// it and the group splits the partitions of mi.trades.v1 between them.
	Group string
	// InstanceID makes the transactional id unique per instance.
	InstanceID string
	Operators  operators.Config
	Stats      *Stats
	Logger     *slog.Logger
	// MaxPollRecords bounds the records handled in one transaction.
	MaxPollRecords int
}

// ProcessStats are the operator loop's counters.
type ProcessStats struct {
	Trades       atomic.Uint64
	Candles      atomic.Uint64
	Documents    atomic.Uint64
	Rejected     atomic.Uint64
	Transactions atomic.Uint64
	Aborts       atomic.Uint64
	Restores     atomic.Uint64
}

// processor holds the per-partition engines of one operator instance.
type processor struct {
	cfg     ProcessConfig
	sess    *kgo.GroupTransactSession
	engines map[int32]*operators.Engine
	stats   *ProcessStats
	log     *slog.Logger
	dropAll atomic.Bool

	// current is the partition whose engine is running; the emit functions
	// produce into the transaction for it.
	current int32
	marshal proto.MarshalOptions
	mu      sync.Mutex
	prodErr error
}

// Process runs the operator loop until ctx ends: it consumes mi.trades.v1 in
// the consumer group, runs one operators.Engine per partition, and commits
// candles, documents, dead letters, changed operator state and consumer
// offsets in one transaction per poll. After a rebalance or an aborted
// transaction it drops its engines and restores them from mi.state.v1, so its
// state always matches its committed offsets.
func Process(ctx context.Context, cfg ProcessConfig, stats *ProcessStats) error {
	if cfg.Group == "" {
		cfg.Group = "mi-operators"
	}
	if cfg.InstanceID == "" {
		cfg.InstanceID = "local"
	}
	if cfg.MaxPollRecords <= 0 {
		cfg.MaxPollRecords = 20_000
	}
	if stats == nil {
		stats = &ProcessStats{}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	p := &processor{cfg: cfg, engines: map[int32]*operators.Engine{}, stats: stats, log: log,
		marshal: proto.MarshalOptions{Deterministic: true}}
	onChange := func(_ context.Context, _ *kgo.Client, _ map[string][]int32) { p.dropAll.Store(true) }
	sess, err := kgo.NewGroupTransactSession(
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeTopics(schemas.TopicTrades),
		kgo.TransactionalID(transactionalID("mi-operators-", cfg.InstanceID)),
		kgo.TransactionTimeout(2*time.Minute),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.RequireStableFetchOffsets(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.OnPartitionsAssigned(onChange),
		kgo.OnPartitionsRevoked(onChange),
		kgo.OnPartitionsLost(onChange),
		kgo.RecordPartitioner(statePartitioner{}),
		kgo.ProducerLinger(2*time.Millisecond),
		kgo.MaxBufferedRecords(200_000),
		kgo.FetchMaxWait(200*time.Millisecond),
	)
	if err != nil {
		return fmt.Errorf("cannot create operator consumer: %w", err)
	}
	p.sess = sess
	defer sess.Close()
	for {
		fs := sess.PollRecords(ctx, cfg.MaxPollRecords)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if fs.IsClientClosed() {
			return nil
		}
		var ferr error
		fs.EachError(func(t string, part int32, err error) {
			ferr = fmt.Errorf("cannot fetch %s[%d]: %w", t, part, err)
		})
		if ferr != nil {
			log.Warn("fetch failed; retrying", "err", ferr)
			continue
		}
		if fs.NumRecords() == 0 {
			continue
		}
		if p.dropAll.Swap(false) {
			clear(p.engines)
		}
		if err := sess.Begin(); err != nil {
			return fmt.Errorf("cannot begin transaction: %w", err)
		}
		var perr error
		fs.EachPartition(func(fp kgo.FetchTopicPartition) {
			if perr != nil {
				return
			}
			perr = p.handle(ctx, fp)
		})
		p.mu.Lock()
		if perr == nil {
			perr = p.prodErr
		}
		p.prodErr = nil
		p.mu.Unlock()
		try := kgo.TryCommit
		if perr != nil {
			try = kgo.TryAbort
		}
		committed, err := sess.End(ctx, try)
		if err != nil {
			return fmt.Errorf("cannot end transaction: %w", err)
		}
		if perr != nil {
			return perr
		}
		if !committed {
			stats.Aborts.Add(1)
			log.Info("transaction aborted (rebalance); restoring operator state from the changelog")
			clear(p.engines)
			continue
		}
		stats.Transactions.Add(1)
	}
}

// handle runs the records of one partition through its engine and produces
// the engine's changed state.
func (p *processor) handle(ctx context.Context, fp kgo.FetchTopicPartition) error {
	eng, err := p.engine(ctx, fp.Partition)
	if err != nil {
		return err
	}
	p.current = fp.Partition
	var t schemas.Trade
	for _, r := range fp.Records {
		t.Reset()
		if err := proto.Unmarshal(r.Value, &t); err != nil {
			p.dlq(r.Value, "malformed record: "+err.Error(), "")
			continue
		}
		p.stats.Trades.Add(1)
		eng.Push(&t)
	}
	for _, key := range eng.DirtyKeys() {
		p.produce(ctx, &kgo.Record{Topic: schemas.TopicState, Partition: fp.Partition, Key: []byte(key), Value: eng.AppendState(nil, key)})
	}
	eng.ClearDirty()
	return nil
}

// engine returns the engine of a partition, restoring it from the changelog
// if this instance does not hold it.
func (p *processor) engine(ctx context.Context, part int32) (*operators.Engine, error) {
	if e := p.engines[part]; e != nil {
		return e, nil
	}
	e := operators.NewEngine(p.cfg.Operators, operators.Emit{
		Candle:   p.emitCandle,
		Document: p.emitDocument,
		Reject:   p.emitReject,
	})
	last := map[string][]byte{}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	err := ReadCommitted(rctx, p.cfg.Brokers, schemas.TopicState, []int32{part}, func(r *kgo.Record) {
		last[string(r.Key)] = r.Value
	})
	if err != nil {
		return nil, fmt.Errorf("cannot restore operator state of partition %d: %w", part, err)
	}
	keys := make([]string, 0, len(last))
	for k := range last {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := e.RestoreState(k, last[k]); err != nil {
			return nil, fmt.Errorf("cannot restore operator state %q of partition %d: %w", k, part, err)
		}
	}
	p.stats.Restores.Add(1)
	if len(keys) > 0 {
		p.log.Info("operator state restored", "partition", part, "keys", len(keys))
	}
	p.engines[part] = e
	return e, nil
}

func (p *processor) produce(ctx context.Context, r *kgo.Record) {
	p.sess.Produce(ctx, r, func(_ *kgo.Record, err error) {
		if err != nil {
			p.mu.Lock()
			if p.prodErr == nil {
				p.prodErr = fmt.Errorf("cannot produce to %s: %w", r.Topic, err)
			}
			p.mu.Unlock()
		}
	})
}

func (p *processor) emitCandle(c *schemas.Candle) {
	v, err := p.marshal.Marshal(c)
	if err != nil {
		panic("BUG: cannot marshal candle: " + err.Error())
	}
	p.stats.Candles.Add(1)
	p.produce(context.Background(), &kgo.Record{Topic: schemas.TopicCandles, Key: []byte(c.Symbol + "|" + c.Venue), Value: v})
}

func (p *processor) emitDocument(d *schemas.IntelligenceDocument) {
	v, err := p.marshal.Marshal(d)
	if err != nil {
		panic("BUG: cannot marshal document: " + err.Error())
	}
	p.stats.Documents.Add(1)
	p.produce(context.Background(), &kgo.Record{Topic: schemas.TopicSignals, Key: []byte(d.Symbol + "|" + d.Window), Value: v})
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
	p.produce(context.Background(), &kgo.Record{
		Topic: schemas.TopicTradesDLQ, Key: []byte(source), Value: value,
		Headers: []kgo.RecordHeader{{Key: "reason", Value: []byte(reason)}, {Key: "source", Value: []byte(source)}, {Key: "stage", Value: []byte("operators")}},
	})
}

// statePartitioner puts operator state records in the partition the record
// names (the input partition they belong to) and hashes every other keyed
// record like Kafka's default partitioner.
type statePartitioner struct{}

func (statePartitioner) ForTopic(topic string) kgo.TopicPartitioner {
	if topic == schemas.TopicState {
		return kgo.ManualPartitioner().ForTopic(topic)
	}
	return kgo.StickyKeyPartitioner(nil).ForTopic(topic)
}

package pipeline

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/schemas"
)

// TopicSideState is the changelog of the side-event stage (RunSideEvents):
// compacted, partitioned like the side topics; in partition p, under the
// detector's name, the state of that detector over partition p of its
// topic. One record per detector and partition is kept, so it never grows
// with time: the detectors' state is bounded by what they watch (eleven
// stablecoins per chain, the watched tokens).
const TopicSideState = "mi.side-state.v1"

// SideEventsGroup is the consumer group of the side-event stage.
const SideEventsGroup = "mi-side-events"

// Detector is a pure alert detector over the records of one type: the
// shape of operators.DepegDetector and operators.TokenRiskChangeDetector.
type Detector[T any] interface {
	Push(v T, out []operators.AlertEvent) []operators.AlertEvent
	MarshalState() []byte
	RestoreState(b []byte) error
}

// SideDetector runs one detector over one side topic in the side-event
// stage; build it with DetectorOf.
type SideDetector struct {
	// Name keys the detector's state in TopicSideState.
	Name string
	// Topic is the side topic it reads; DLQ its dead-letter topic.
	Topic, DLQ string
	// Events are the alert event names it produces.
	Events []string
	new    func() sideOperator
}

// sideOperator is one detector instance over one input partition.
type sideOperator interface {
	push(value []byte, out []operators.AlertEvent) ([]operators.AlertEvent, error)
	MarshalState() []byte
	RestoreState(b []byte) error
}

type sideOp[T proto.Message, D Detector[T]] struct {
	t        sidetopic.Topic[T]
	validate func(T) error
	d        D
}

func (o *sideOp[T, D]) push(value []byte, out []operators.AlertEvent) ([]operators.AlertEvent, error) {
	v, err := o.t.Decode(value)
	if err == nil && o.validate != nil {
		err = o.validate(v)
	}
	if err != nil {
		return out, err
	}
	return o.d.Push(v, out), nil
}

func (o *sideOp[T, D]) MarshalState() []byte        { return o.d.MarshalState() }
func (o *sideOp[T, D]) RestoreState(b []byte) error { return o.d.RestoreState(b) }

// DetectorOf declares a detector of topic t's records: newDet makes one
// per input partition; validate (may be nil) refuses records the detector
// must not see, which are dead-lettered on t's DLQ with the reason.
func DetectorOf[T proto.Message, D Detector[T]](name string, t sidetopic.Topic[T], validate func(T) error, newDet func() D, events ...string) SideDetector {
	return SideDetector{Name: name, Topic: t.Name, DLQ: t.DLQ(), Events: events,
		new: func() sideOperator { return &sideOp[T, D]{t: t, validate: validate, d: newDet()} }}
}

// TokenDetectors are the detectors of the token watches (docs/token.md):
// stablecoin_depeg over mi.stablecoins.v1 and token_risk_change over
// mi.token-risk.v1.
func TokenDetectors() []SideDetector {
	return []SideDetector{
		DetectorOf("stablecoin_depeg", sidetopic.Stablecoins, schemas.ValidateStablecoinQuote, operators.NewDepegDetector, operators.AlertStablecoinDepeg),
		DetectorOf("token_risk_change", sidetopic.TokenRisk, schemas.ValidateTokenRiskObservation, operators.NewTokenRiskChangeDetector, operators.AlertTokenRiskChange),
	}
}

// SideEventsConfig configures RunSideEvents.
type SideEventsConfig struct {
	Brokers   []string
	Detectors []SideDetector
	// Group is the consumer group; default SideEventsGroup. Each stage of
	// a deployment (the token watches', the positioning events') has its
	// own group, transactional ids and detector names; they share
	// TopicSideState, keyed by detector name.
	Group string
	// Name names the stage in its transactional id and its logs; default
	// "side-events".
	Name string
	// InstanceID makes the transactional id unique per instance and is the
	// static group membership id; default "local".
	InstanceID string
	// TxnSuffix is appended to the transactional id; see RunConfig.
	TxnSuffix string
	Stats     *SideEventsStats
	Logger    *slog.Logger
}

// SideEventsStats are the stage's counters.
type SideEventsStats struct {
	Records      atomic.Uint64
	Events       atomic.Uint64
	Rejected     atomic.Uint64
	Transactions atomic.Uint64
	Aborts       atomic.Uint64
	Restores     atomic.Uint64
}

// RunSideEvents is the side-event stage: it runs alert detectors over side
// topics (the depeg and token-risk watches' records) and publishes their
// events on mi.events.v1, until ctx ends.
//
// It consumes the detectors' topics in consumer group SideEventsGroup (read
// committed) with one instance of each detector per input partition, and
// commits every poll in one transaction: the events, the records it
// dead-letters, the state of every detector that saw records (in
// TopicSideState, partition p for input partition p) and the consumer
// offsets. Events, state and position therefore always agree: a crash or a
// rebalance aborts the transaction, the instance drops its detectors,
// restores them from TopicSideState and reads again from the committed
// offsets, and the detectors (pure, deterministic) emit the same events
// with the same ids. Run one or more instances; the group splits the
// partitions.
func RunSideEvents(ctx context.Context, cfg SideEventsConfig) error {
	if len(cfg.Detectors) == 0 {
		panic("BUG: RunSideEvents without detectors")
	}
	if cfg.InstanceID == "" {
		cfg.InstanceID = "local"
	}
	if cfg.Stats == nil {
		cfg.Stats = &SideEventsStats{}
	}
	cfg.Group = cmp.Or(cfg.Group, SideEventsGroup)
	cfg.Name = cmp.Or(cfg.Name, "side-events")
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	byTopic := map[string][]int{}
	var topics []string
	for i, d := range cfg.Detectors {
		if d.new == nil || d.Name == "" {
			panic("BUG: a side detector not built with DetectorOf")
		}
		if _, ok := byTopic[d.Topic]; !ok {
			topics = append(topics, d.Topic)
		}
		byTopic[d.Topic] = append(byTopic[d.Topic], i)
	}
	var dropAll atomic.Bool
	onChange := func(context.Context, *kgo.Client, map[string][]int32) { dropAll.Store(true) }
	sess, err := kgo.NewGroupTransactSession(
		kgo.SeedBrokers(cfg.Brokers...),
		kgo.ConsumerGroup(cfg.Group),
		kgo.InstanceID(cfg.InstanceID),
		kgo.ConsumeTopics(topics...),
		kgo.TransactionalID(transactionalID("mi-"+cfg.Name+"-", cfg.InstanceID)+cfg.TxnSuffix),
		kgo.TransactionTimeout(2*time.Minute),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.RequireStableFetchOffsets(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.OnPartitionsRevoked(onChange),
		kgo.OnPartitionsLost(onChange),
		kgo.RecordPartitioner(stateManual{kgo.StickyKeyPartitioner(nil)}),
		kgo.FetchMaxWait(200*time.Millisecond),
	)
	if err != nil {
		return fmt.Errorf("cannot create the side-event stage's consumer: %w", err)
	}
	defer sess.Close()
	if _, _, err := sess.Client().ProducerID(ctx); err != nil {
		return fmt.Errorf("cannot initialize the side-event stage's transactional producer: %w", err)
	}
	defer func() {
		actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = sess.End(actx, kgo.TryAbort)
	}()
	// ops[partition][detector index] of the partitions this instance holds;
	// a partition is restored when its first records arrive.
	ops := map[int32][]sideOperator{}
	var prodErr atomic.Pointer[error]
	promise := func(r *kgo.Record, err error) {
		if err != nil {
			e := fmt.Errorf("cannot produce to %s: %w", r.Topic, err)
			prodErr.CompareAndSwap(nil, &e)
		}
	}
	restore := func(part int32) ([]sideOperator, error) {
		last := map[string][]byte{}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		if err := ReadCommitted(rctx, cfg.Brokers, TopicSideState, []int32{part}, func(r *kgo.Record) { last[string(r.Key)] = r.Value }); err != nil {
			return nil, fmt.Errorf("cannot restore the side detectors of partition %d: %w", part, err)
		}
		out := make([]sideOperator, len(cfg.Detectors))
		for i, d := range cfg.Detectors {
			out[i] = d.new()
			if b, ok := last[d.Name]; ok {
				if err := out[i].RestoreState(b); err != nil {
					return nil, fmt.Errorf("cannot restore %s of partition %d: %w", d.Name, part, err)
				}
			}
		}
		cfg.Stats.Restores.Add(1)
		return out, nil
	}
	log.Info("side-event stage running", "stage", cfg.Name, "group", cfg.Group, "topics", topics)
	var events []operators.AlertEvent
	for {
		fs := sess.PollFetches(ctx)
		if ctx.Err() != nil || fs.IsClientClosed() {
			return nil
		}
		fs.EachError(func(t string, p int32, err error) {
			if !errors.Is(err, context.Canceled) {
				log.Warn("side-event stage fetch failed", "topic", t, "partition", p, "err", err)
			}
		})
		if fs.NumRecords() == 0 {
			continue
		}
		if dropAll.Swap(false) {
			clear(ops)
		}
		if err := sess.Begin(); err != nil {
			return fmt.Errorf("cannot begin the side-event transaction: %w", err)
		}
		dirty := map[int32][]bool{}
		var ferr error
		fs.EachPartition(func(fp kgo.FetchTopicPartition) {
			if ferr != nil || len(fp.Records) == 0 {
				return
			}
			po, ok := ops[fp.Partition]
			if !ok {
				if po, ferr = restore(fp.Partition); ferr != nil {
					return
				}
				ops[fp.Partition] = po
			}
			if dirty[fp.Partition] == nil {
				dirty[fp.Partition] = make([]bool, len(cfg.Detectors))
			}
			for _, r := range fp.Records {
				if string(r.Key) == SentinelKey {
					continue
				}
				cfg.Stats.Records.Add(1)
				for _, i := range byTopic[r.Topic] {
					var err error
					events, err = po[i].push(r.Value, events[:0])
					dirty[fp.Partition][i] = true
					if err != nil {
						cfg.Stats.Rejected.Add(1)
						sess.Produce(ctx, &kgo.Record{Topic: cfg.Detectors[i].DLQ, Key: r.Key, Value: r.Value, Headers: []kgo.RecordHeader{
							{Key: "reason", Value: []byte(err.Error())}, {Key: "stage", Value: []byte(cfg.Name)}, {Key: "detector", Value: []byte(cfg.Detectors[i].Name)}}}, promise)
						continue
					}
					for _, e := range events {
						v, err := json.Marshal(e)
						if err != nil {
							panic("BUG: cannot marshal alert event: " + err.Error())
						}
						cfg.Stats.Events.Add(1)
						sess.Produce(ctx, &kgo.Record{Topic: schemas.TopicEvents, Key: []byte(e.Symbol), Value: v}, promise)
					}
				}
			}
		})
		if ferr != nil {
			_, _ = sess.End(ctx, kgo.TryAbort)
			return ferr
		}
		parts := make([]int32, 0, len(dirty))
		for p := range dirty {
			parts = append(parts, p)
		}
		slices.Sort(parts)
		for _, p := range parts {
			for i, d := range dirty[p] {
				if d {
					sess.Produce(ctx, &kgo.Record{Topic: TopicSideState, Partition: p, Key: []byte(cfg.Detectors[i].Name), Value: ops[p][i].MarshalState()}, promise)
				}
			}
		}
		try := kgo.TryCommit
		if err := sess.Client().Flush(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("cannot flush the side-event transaction: %w", err)
		}
		if pe := prodErr.Swap(nil); pe != nil {
			log.Warn("side-event stage: a produce failed; the records are read again", "err", *pe)
			try = kgo.TryAbort
		}
		committed, err := sess.End(ctx, try)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("cannot commit the side-event transaction: %w", err)
		}
		if !committed {
			cfg.Stats.Aborts.Add(1)
			clear(ops) // restored from the changelog, at the committed offsets
			continue
		}
		cfg.Stats.Transactions.Add(1)
	}
}

// stateManual places TopicSideState records in the partition they name
// (the input partition whose state they hold) and every other record by
// its key, as the other producers of those topics do.
type stateManual struct{ keyed kgo.Partitioner }

func (p stateManual) ForTopic(t string) kgo.TopicPartitioner {
	if t == TopicSideState {
		return kgo.ManualPartitioner().ForTopic(t)
	}
	return p.keyed.ForTopic(t)
}

// SideEventNames returns the alert event names the detectors produce, for
// the process's operators.LiveEvents.
func SideEventNames(ds []SideDetector) []string {
	var out []string
	for _, d := range ds {
		for _, e := range d.Events {
			if !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	return out
}

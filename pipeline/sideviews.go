package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/schemas"
)

// SideView is a view of one side topic, as FollowSide feeds it: build it
// with ViewOf.
type SideView struct {
	topic string
	apply func(value []byte) error
}

// Topic is the side topic the view reads.
func (v SideView) Topic() string { return v.topic }

// ViewOf returns the view that decodes the records of t and hands each to
// apply, in the order of its key's partition. apply runs on FollowSide's
// goroutine; a view read by other goroutines (the query tier) locks itself.
// An error from apply (the record is well-formed protobuf but not a valid
// record for the view) is logged with the record's position and the record
// is skipped: a view cannot dead-letter, since every API instance reads the
// same records, and the producer has validated them.
//
//	lv := views.NewLiquidity()
//	sv := pipeline.ViewOf(sidetopic.PoolEvents, lv.ApplyRecord)
func ViewOf[T proto.Message](t sidetopic.Topic[T], apply func(T) error) SideView {
	return SideView{topic: t.Name, apply: func(b []byte) error {
		v, err := t.Decode(b)
		if err != nil {
			return err
		}
		return apply(v)
	}}
}

// FollowSide materializes side topics into their views: it reads every
// view's topic from the beginning (read committed), so a restarted API
// instance rebuilds its views, and then follows them until ctx ends. Every
// API instance runs its own copy, without a consumer group, so instances
// stay stateless and give the same answers. Records produced again after an
// ingest crash (a "seq" not above the last one applied from its source in
// that partition) are dropped, so each record takes effect once.
//
// ready, when not nil, is closed once the backlog has been applied: every
// partition read up to the end it had when FollowSide started (its last
// stable offset: what a read-committed reader can see then). Positions
// count every record handed over, transaction markers included, so the
// decision does not depend on timing; offsets a read-committed reader is
// never handed (a transaction the embedded broker aborted in a crash without
// writing its marker, batches emptied by compaction) are stepped over by
// reading the partition's raw log from the position reached
// (nextVisible), never by waiting for a quiet poll, which a loaded machine
// can give before the backlog is read.
func FollowSide(ctx context.Context, brokers []string, views []SideView, logger *slog.Logger, ready chan<- struct{}) error {
	if logger == nil {
		logger = slog.Default()
	}
	if len(views) == 0 {
		if ready != nil {
			close(ready)
		}
		<-ctx.Done()
		return ctx.Err()
	}
	byTopic := map[string][]SideView{}
	var topics []string
	for _, v := range views {
		if byTopic[v.topic] == nil {
			topics = append(topics, v.topic)
		}
		byTopic[v.topic] = append(byTopic[v.topic], v)
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ConsumeTopics(topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords(),
		kgo.FetchMaxWait(100*time.Millisecond),
	)
	if err != nil {
		return fmt.Errorf("cannot create side-topic consumer: %w", err)
	}
	defer cl.Close()
	start := time.Now()
	bl, err := sideBacklogOf(ctx, cl, topics)
	if err != nil {
		return err
	}
	d := sideDedupe{last: map[sideStream]int64{}}
	var in schemas.Interner
	caughtUp := false
	applied, dropped, failed := 0, 0, 0
	for {
		if !caughtUp && len(bl.end) == 0 {
			caughtUp = true
			logger.Info("side views rebuilt", "topics", topics, "records", applied, "redelivered", dropped, "refused", failed, "took", time.Since(start).Round(time.Millisecond))
			if ready != nil {
				close(ready)
			}
		}
		pctx, cancel := context.WithTimeout(ctx, 250*time.Millisecond)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if fs.IsClientClosed() {
			return nil
		}
		n := 0
		fs.EachRecord(func(r *kgo.Record) {
			n++
			bl.handed(r.Topic, r.Partition, r.Offset)
			if r.Attrs.IsControl() {
				return
			}
			if src, seq, ok := sourceSeq(r, &in); ok && !d.fresh(r.Topic, r.Partition, src, seq) {
				dropped++
				return
			}
			for _, v := range byTopic[r.Topic] {
				if err := v.apply(r.Value); err != nil {
					failed++
					logger.Warn("skipping a side record its view refuses", "topic", r.Topic, "partition", r.Partition, "offset", r.Offset, "err", err)
					continue
				}
			}
			applied++
		})
		if !caughtUp && n == 0 && len(bl.end) > 0 {
			// Nothing came: what is left of a partition's backlog may be
			// offsets a read-committed reader is never handed.
			if err := bl.skipInvisible(ctx, cl); err != nil && ctx.Err() == nil {
				logger.Warn("cannot read a side topic's log to find where its backlog ends; retrying", "err", err)
			}
		}
	}
}

// sidePart is one partition of a side topic.
type sidePart struct {
	topic     string
	partition int32
}

// sideBacklog is what FollowSide has still to read before it is ready:
// per partition, the end offset it had at start (only partitions with
// records), and the position reached (the offset after the last record
// handed over, or the log start).
type sideBacklog struct {
	end    map[sidePart]int64
	pos    map[sidePart]int64
	leader map[sidePart]int32
	ids    map[string][16]byte
}

// sideBacklogOf lists the partitions of topics and their start and last
// stable offsets.
func sideBacklogOf(ctx context.Context, cl *kgo.Client, topics []string) (*sideBacklog, error) {
	adm := kadm.NewClient(cl)
	td, err := adm.ListTopics(ctx, topics...)
	if err == nil {
		err = td.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("cannot describe the side topics %v: %w", topics, err)
	}
	ends, err := adm.ListCommittedOffsets(ctx, topics...)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("cannot list the end offsets of %v: %w", topics, err)
	}
	starts, err := adm.ListStartOffsets(ctx, topics...)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("cannot list the start offsets of %v: %w", topics, err)
	}
	b := &sideBacklog{end: map[sidePart]int64{}, pos: map[sidePart]int64{}, leader: map[sidePart]int32{}, ids: map[string][16]byte{}}
	for _, t := range td {
		b.ids[t.Topic] = t.ID
		for p, pd := range t.Partitions {
			b.leader[sidePart{t.Topic, p}] = pd.Leader
		}
	}
	ends.Each(func(o kadm.ListedOffset) {
		k := sidePart{o.Topic, o.Partition}
		from := int64(0)
		if s, ok := starts.Lookup(o.Topic, o.Partition); ok {
			from = s.Offset
		}
		if o.Offset > from {
			b.end[k], b.pos[k] = o.Offset, from
		}
	})
	return b, nil
}

// handed records that the record at offset of a partition was handed over.
func (b *sideBacklog) handed(topic string, partition int32, offset int64) {
	k := sidePart{topic, partition}
	end, ok := b.end[k]
	if !ok {
		return
	}
	b.pos[k] = offset + 1
	if offset+1 >= end {
		delete(b.end, k)
	}
}

// skipInvisible moves each unfinished partition's position to the next
// offset a read-committed reader is handed a record at; a partition with
// no such offset before its end is finished.
func (b *sideBacklog) skipInvisible(ctx context.Context, cl *kgo.Client) error {
	var errs []error
	for k, end := range b.end {
		next, err := nextVisible(ctx, cl, b.leader[k], k.topic, b.ids[k.topic], k.partition, b.pos[k], end)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		b.pos[k] = next
		if next >= end {
			delete(b.end, k)
		}
	}
	return errors.Join(errs...)
}

// nextVisible reads partition of topic from offset from, as a
// read-committed consumer does (aborted transactions dropped, markers
// kept), and returns the offset of the first record such a consumer is
// handed at or after from, or the offset the log was read to when there is
// none before end.
func nextVisible(ctx context.Context, cl *kgo.Client, leader int32, topic string, id [16]byte, partition int32, from, end int64) (int64, error) {
	for from < end {
		req := kmsg.NewPtrFetchRequest()
		req.ReplicaID = -1
		req.MaxBytes = 8 << 20
		req.IsolationLevel = 1
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic, rt.TopicID = topic, id
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = partition, from, 8<<20
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := cl.Broker(int(leader)).Request(ctx, req)
		if err != nil {
			return from, fmt.Errorf("cannot read %s[%d] at %d: %w", topic, partition, from, err)
		}
		fr := resp.(*kmsg.FetchResponse)
		if err := kerr.ErrorForCode(fr.ErrorCode); err != nil {
			return from, fmt.Errorf("cannot read %s[%d] at %d: %w", topic, partition, from, err)
		}
		var part *kmsg.FetchResponseTopicPartition
		for i := range fr.Topics {
			for j := range fr.Topics[i].Partitions {
				if fr.Topics[i].Partitions[j].Partition == partition {
					part = &fr.Topics[i].Partitions[j]
				}
			}
		}
		if part == nil {
			return from, fmt.Errorf("cannot read %s[%d] at %d: the broker answered without the partition", topic, partition, from)
		}
		fp, next := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{KeepControlRecords: true, Offset: from,
			IsolationLevel: kgo.ReadCommitted(), Topic: topic, Partition: partition}, part, kgo.DefaultDecompressor(), nil)
		if fp.Err != nil {
			return from, fmt.Errorf("cannot read %s[%d] at %d: %w", topic, partition, from, fp.Err)
		}
		if len(fp.Records) > 0 {
			return fp.Records[0].Offset, nil
		}
		if next <= from {
			return from, nil // nothing more to read now
		}
		from = next
	}
	return from, nil
}

// sideStream is one source's records in one partition of a side topic.
type sideStream struct {
	topic     string
	partition int32
	source    string
}

// sideDedupe keeps the last seq applied per stream. A source numbers its
// records in order and writes them to a partition in that order, and a
// source resumed after a crash writes the records after its checkpoint
// again with the same numbers: a seq not above the last one is such a copy.
type sideDedupe struct{ last map[sideStream]int64 }

func (d *sideDedupe) fresh(topic string, partition int32, source string, seq int64) bool {
	k := sideStream{topic, partition, source}
	if last, ok := d.last[k]; ok && seq <= last {
		return false
	}
	d.last[k] = seq
	return true
}

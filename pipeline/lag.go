package pipeline

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/marketintel/mi/schemas"
)

// Lag returns how many committed trades of mi.trades.v1 the operator group
// (group; "" means mi-operators) has not yet committed as processed. See
// GroupLag.
func Lag(ctx context.Context, brokers []string, group string) (int64, error) {
	if group == "" {
		group = "mi-operators"
	}
	return GroupLag(ctx, brokers, group, schemas.TopicTrades)
}

// GroupLag returns how many committed data records of the topics a
// consumer group has not yet committed as consumed: the records between
// the group's offset and the last stable offset of each partition
// (transaction markers and aborted records occupy offsets but are not
// data). It reads that stretch of the log with ReadStable, so its answer is
// exact at any load: meant for tests and diagnostics, not for a hot path.
func GroupLag(ctx context.Context, brokers []string, group string, topics ...string) (int64, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return 0, fmt.Errorf("cannot create Kafka client: %w", err)
	}
	got, err := kadm.NewClient(cl).FetchOffsets(ctx, group)
	cl.Close()
	if err != nil {
		return 0, fmt.Errorf("cannot fetch offsets of group %s: %w", group, err)
	}
	var lag int64
	for _, topic := range topics {
		from := map[int32]int64{}
		got.Each(func(o kadm.OffsetResponse) {
			if o.Topic == topic && o.Err == nil && o.At > 0 {
				from[o.Partition] = o.At
			}
		})
		n, err := ReadStable(ctx, brokers, topic, from, nil)
		if err != nil {
			return 0, err
		}
		lag += n
	}
	return lag, nil
}

// ReadStable reads the committed data records of every partition of topic
// from the offset in from (0 when absent) up to the partition's last stable
// offset as of the call, and returns how many there are. With a non-nil fn
// it also calls fn for each of them, in offset order per partition.
//
// It needs no timer to know when it is done, so it neither stops early on a
// slow machine nor waits forever: it reads with read_uncommitted, which
// returns every offset up to the high watermark (data of committed, aborted
// and open transactions, and the transaction markers), and classifies each
// data record by the next marker of its producer. A record below the last
// stable offset belongs to a finished transaction; it counts if that
// transaction's marker says commit, or if it was not written in a
// transaction. A finished transaction without a marker is one the embedded
// broker aborted when it reloaded after a crash (see docs/topics.md), so
// its records do not count.
func ReadStable(ctx context.Context, brokers []string, topic string, from map[int32]int64, fn func(*kgo.Record)) (int64, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return 0, fmt.Errorf("cannot create Kafka client: %w", err)
	}
	adm := kadm.NewClient(cl)
	// The stable offsets first: every transaction that finished below
	// them has its marker below the high watermarks listed after.
	stable, err := adm.ListCommittedOffsets(ctx, topic)
	if err == nil {
		err = stable.Error()
	}
	var ends kadm.ListedOffsets
	if err == nil {
		ends, err = adm.ListEndOffsets(ctx, topic)
		if err == nil {
			err = ends.Error()
		}
	}
	cl.Close()
	if err != nil {
		return 0, fmt.Errorf("cannot list offsets of %s: %w", topic, err)
	}
	parts := map[int32]*stableRead{}
	starts := map[int32]kgo.Offset{}
	stable.Each(func(o kadm.ListedOffset) {
		start := from[o.Partition]
		end, ok := ends.Lookup(topic, o.Partition)
		if !ok || o.Offset <= start || end.Offset <= start {
			return
		}
		parts[o.Partition] = &stableRead{lso: o.Offset, last: end.Offset - 1, pending: map[int64][]*kgo.Record{}}
		starts[o.Partition] = kgo.NewOffset().At(start)
	})
	if len(parts) == 0 {
		return 0, nil
	}
	rd, err := kgo.NewClient(kgo.SeedBrokers(brokers...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: starts}),
		kgo.FetchIsolationLevel(kgo.ReadUncommitted()), kgo.KeepControlRecords(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxPartitionBytes(MaxRecordBytes))
	if err != nil {
		return 0, fmt.Errorf("cannot create Kafka reader: %w", err)
	}
	defer rd.Close()
	var n int64
	open := len(parts)
	for open > 0 {
		fs := rd.PollFetches(ctx)
		if ctx.Err() != nil {
			return 0, fmt.Errorf("cannot read %s to its stable offsets: %w", topic, ctx.Err())
		}
		var ferr error
		fs.EachError(func(_ string, p int32, err error) { ferr = fmt.Errorf("cannot read %s[%d]: %w", topic, p, err) })
		if ferr != nil {
			return 0, ferr
		}
		fs.EachRecord(func(r *kgo.Record) {
			p := parts[r.Partition]
			if p == nil || p.done || r.Offset > p.last {
				return
			}
			p.add(r, fn != nil)
			if r.Offset == p.last {
				p.done = true
				open--
				n += int64(p.count)
				if fn != nil {
					slices.SortFunc(p.out, func(a, b *kgo.Record) int { return cmp.Compare(a.Offset, b.Offset) })
					for _, r := range p.out {
						fn(r)
					}
					p.out = nil
				}
			}
		})
	}
	return n, nil
}

// stableRead is the state of one partition in ReadStable.
type stableRead struct {
	lso, last int64
	// pending holds, per producer id, the data records below the stable
	// offset whose transaction marker has not been read yet.
	pending map[int64][]*kgo.Record
	count   int
	out     []*kgo.Record
	done    bool
}

func (p *stableRead) add(r *kgo.Record, keep bool) {
	if r.Attrs.IsControl() {
		recs := p.pending[r.ProducerID]
		delete(p.pending, r.ProducerID)
		// A control record's key is a version (int16) and a type (int16):
		// 0 abort, 1 commit.
		if len(r.Key) >= 4 && binary.BigEndian.Uint16(r.Key[2:4]) == 1 {
			p.count += len(recs)
			if keep {
				p.out = append(p.out, recs...)
			}
		}
		return
	}
	if r.Offset >= p.lso {
		return // in or after a transaction still open at the call
	}
	if !r.Attrs.IsTransactional() {
		p.count++
		if keep {
			p.out = append(p.out, r)
		}
		return
	}
	p.pending[r.ProducerID] = append(p.pending[r.ProducerID], r)
}

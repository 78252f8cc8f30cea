package pipeline

import (
	"context"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/marketintel/mi/schemas"
)

// TestLagIsExactOnASlowBroker checks Lag and ReadStable against a broker
// that answers every fetch late, as a loaded machine does: committed,
// aborted, open and non-transactional records, and a group offset in the
// middle. An answer that depended on how fast the reader's first fetch
// came back (a "quiet period" ending the read) would say 0 here.
func TestLagIsExactOnASlowBroker(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	emb, err := StartEmbedded("127.0.0.1:0", "", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 2); err != nil {
		t.Fatal(err)
	}
	txn := func(id string, n int, commit bool) {
		t.Helper()
		cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.TransactionalID(id), kgo.RecordPartitioner(kgo.ManualPartitioner()))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: schemas.TopicTrades, Partition: int32(i % 2), Key: []byte(id), Value: []byte(strconv.Itoa(i))}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	txn("a", 10, true) // 5 per partition
	txn("b", 6, false) // aborted: not trades
	plain, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if err := plain.ProduceSync(ctx, &kgo.Record{Topic: schemas.TopicTrades, Partition: 1, Value: []byte("plain")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	txn("c", 4, true) // 2 per partition

	// The group has processed the first 3 records of partition 0.
	adm := kadm.NewClient(plain)
	var offs kadm.Offsets
	offs.Add(kadm.Offset{Topic: schemas.TopicTrades, Partition: 0, At: 3, LeaderEpoch: -1})
	if _, err := adm.CommitOffsets(ctx, "lag-test", offs); err != nil {
		t.Fatal(err)
	}

	// An open transaction after all that: its records are not stable yet.
	open, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.TransactionalID("open"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	if err := open.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := open.ProduceSync(ctx, &kgo.Record{Topic: schemas.TopicTrades, Partition: 0, Value: []byte("open")}).FirstErr(); err != nil {
		t.Fatal(err)
	}

	// From now on every fetch is answered 700 ms late.
	emb.cluster.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		emb.cluster.KeepControl()
		time.Sleep(700 * time.Millisecond)
		return nil, nil, false
	})

	// Partition 0: 5 of a + 2 of c, 3 processed; partition 1: 5 of a, the
	// plain record, 2 of c.
	if lag, err := Lag(ctx, brokers, "lag-test"); err != nil || lag != 4+8 {
		t.Fatalf("Lag = %d, %v; want 12", lag, err)
	}
	var got []string
	n, err := ReadStable(ctx, brokers, schemas.TopicTrades, nil, func(r *kgo.Record) {
		got = append(got, strconv.Itoa(int(r.Partition))+":"+string(r.Key)+string(r.Value))
	})
	want := []string{"0:a0", "0:a2", "0:a4", "0:a6", "0:a8", "0:c0", "0:c2", "1:a1", "1:a3", "1:a5", "1:a7", "1:a9", "1:plain", "1:c1", "1:c3"}
	if err != nil || n != int64(len(want)) {
		t.Fatalf("ReadStable = %d, %v; want %d", n, err, len(want))
	}
	// Partition order is the order of the fetches; within a partition,
	// offset order.
	by := map[byte][]string{}
	for _, s := range got {
		by[s[0]] = append(by[s[0]], s)
	}
	for p, w := range map[byte][]string{'0': want[:7], '1': want[7:]} {
		if len(by[p]) != len(w) {
			t.Fatalf("partition %c: %v, want %v", p, by[p], w)
		}
		for i := range w {
			if by[p][i] != w[i] {
				t.Fatalf("partition %c: %v, want %v", p, by[p], w)
			}
		}
	}
	_ = open.EndTransaction(ctx, kgo.TryAbort)
}

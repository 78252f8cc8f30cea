// Package kafkacluster runs a real Apache Kafka cluster for tests and
// benchmarks: three KRaft nodes on loopback, started, killed and restarted
// by scripts/kafka-cluster.sh with the machine's Java. A cluster that cannot
// start fails the test; it is never skipped (scripts/install.d/kafka.sh
// installs what it needs).
package kafkacluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Cluster is a running Kafka cluster.
type Cluster struct {
	// Dir holds the nodes' configuration, data and logs (node-N/server.log).
	Dir string
	// Brokers are the bootstrap servers, one per node, in node order.
	Brokers []string
	// Nodes is the node count; node ids are 1..Nodes.
	Nodes int
	tb    testing.TB
}

// Script returns the path of scripts/kafka-cluster.sh.
func Script() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("BUG: no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "scripts", "kafka-cluster.sh")
}

// Start starts a cluster of n nodes under a temporary directory of tb and
// waits until its metadata quorum has a leader and all n brokers are
// registered; it stops the cluster when tb ends. The nodes are also killed
// if the test binary dies without cleaning up (the script watches its pid).
func Start(tb testing.TB, n int) *Cluster {
	tb.Helper()
	return Begin(tb, n)()
}

// Begin starts a cluster as Start does but returns at once, so the caller
// can do other work while the JVMs start; ready waits until the cluster is
// up and returns it, failing tb when it cannot start. Call ready from the
// test's goroutine. The cluster is stopped when tb ends, whether or not
// ready was called.
func Begin(tb testing.TB, n int) (ready func() *Cluster) {
	tb.Helper()
	c := &Cluster{Dir: tb.TempDir(), Nodes: n, tb: tb}
	start := time.Now()
	var (
		out  string
		err  error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		out, err = c.run(4*time.Minute, "start", c.Dir, strconv.Itoa(n))
	}()
	tb.Cleanup(func() {
		<-done
		if _, err := c.run(time.Minute, "stop", c.Dir); err != nil {
			tb.Logf("cannot stop the Kafka cluster: %v", err)
		}
	})
	return func() *Cluster {
		tb.Helper()
		<-done
		if err != nil {
			tb.Fatalf("cannot start a %d-node Apache Kafka cluster (scripts/kafka-cluster.sh; scripts/install.d/kafka.sh installs Java, Maven and Kafka): %v\n%s", n, err, c.logTail())
		}
		lines := strings.Fields(strings.TrimSpace(out))
		if len(lines) == 0 {
			tb.Fatalf("kafka-cluster.sh start printed no bootstrap servers")
		}
		c.Brokers = strings.Split(lines[len(lines)-1], ",")
		tb.Logf("Kafka cluster of %d nodes ready in %s: %s", n, time.Since(start).Round(time.Millisecond), strings.Join(c.Brokers, ","))
		return c
	}
}

func (c *Cluster) run(timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{Script()}, args...)...)
	cmd.Env = append(os.Environ(), "MI_KAFKA_OWNER_PID="+strconv.Itoa(os.Getpid()))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("kafka-cluster.sh %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// logTail returns the end of every node's log, for failure messages.
func (c *Cluster) logTail() string {
	var b strings.Builder
	for id := 1; id <= c.Nodes; id++ {
		for _, f := range []string{"stdout.log", "server.log"} {
			data, err := os.ReadFile(filepath.Join(c.Dir, "node-"+strconv.Itoa(id), f))
			if err != nil {
				continue
			}
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			fmt.Fprintf(&b, "--- node %d %s (last lines)\n%s\n", id, f, strings.Join(lines[max(0, len(lines)-15):], "\n"))
		}
	}
	return b.String()
}

// Kill kills node id with SIGKILL.
func (c *Cluster) Kill(id int) {
	c.tb.Helper()
	if _, err := c.run(time.Minute, "kill", c.Dir, strconv.Itoa(id)); err != nil {
		c.tb.Fatalf("cannot kill Kafka node %d: %v", id, err)
	}
}

// Restart starts a killed node again on its data and waits until it is
// registered.
func (c *Cluster) Restart(id int) {
	c.tb.Helper()
	if _, err := c.run(4*time.Minute, "restart", c.Dir, strconv.Itoa(id)); err != nil {
		c.tb.Fatalf("cannot restart Kafka node %d: %v\n%s", id, err, c.logTail())
	}
}

// Leader returns the node id leading a partition of a topic.
func (c *Cluster) Leader(ctx context.Context, topic string, partition int32) (int, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers...))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	td, err := kadm.NewClient(cl).ListTopics(ctx, topic)
	if err != nil {
		return 0, err
	}
	t, ok := td[topic]
	if !ok || t.Err != nil {
		return 0, fmt.Errorf("cannot describe %s: %v", topic, t.Err)
	}
	p, ok := t.Partitions[partition]
	if !ok || p.Leader < 0 {
		return 0, fmt.Errorf("%s[%d] has no leader", topic, partition)
	}
	return int(p.Leader), nil
}

// WaitInSync waits until every partition of every topic has all its
// replicas in sync (a restarted node has caught up).
func (c *Cluster) WaitInSync(ctx context.Context) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers...))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for {
		td, err := adm.ListTopics(ctx)
		behind := ""
		if err == nil {
			for _, t := range td.Sorted() {
				for _, p := range t.Partitions.Sorted() {
					if len(p.ISR) < len(p.Replicas) {
						behind = fmt.Sprintf("%s[%d] in sync %v of %v", t.Topic, p.Partition, p.ISR, p.Replicas)
					}
				}
			}
		}
		if err == nil && behind == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("replicas not in sync: %s (%v): %w", behind, err, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

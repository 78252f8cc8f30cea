package pipeline

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Embedded is an in-process Kafka broker (franz-go's kfake) speaking the real
// Kafka wire protocol on a loopback address, so kcat and any other Kafka
// client can attach to it.
type Embedded struct {
	cluster *kfake.Cluster
	addr    string
}

// StartEmbedded starts the embedded broker listening on listen (host:port;
// port 0 picks a free one). With a non-empty dataDir the broker persists its
// logs, group offsets and transaction state under dataDir/kafka and reloads
// them on the next start.
func StartEmbedded(listen, dataDir string, logger *slog.Logger) (*Embedded, error) {
	if _, _, err := net.SplitHostPort(listen); err != nil {
		return nil, fmt.Errorf("cannot use --kafka-listen %q: want host:port: %w", listen, err)
	}
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.ListenFn(func(network, _ string) (net.Listener, error) {
			return net.Listen(network, listen)
		}),
		// Producers use transactions; allow long batches at max replay speed.
		kfake.BrokerConfigs(map[string]string{
			"transaction.max.timeout.ms": "900000",
			"message.max.bytes":          strconv.Itoa(MaxRecordBytes),
			// Compact mi.signals.v1 and mi.state.v1 every minute: a live
			// run writes ~170 documents a second, of which only the latest
			// per key matter.
			"log.cleaner.backoff.ms": "60000",
		}),
	}
	if dataDir != "" {
		dir := filepath.Join(dataDir, "kafka")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("cannot create broker data directory: %w", err)
		}
		opts = append(opts, kfake.DataDir(dir))
	}
	if logger != nil {
		opts = append(opts, kfake.WithLogger(kfakeLogger{logger}))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("cannot start the embedded Kafka broker on %s: the address is already in use (another mi, or a Kafka broker); choose another with --kafka-listen ADDR (make run KAFKA_ADDR=ADDR), or use that broker with --kafka-brokers: %w", listen, err)
		}
		return nil, fmt.Errorf("cannot start the embedded Kafka broker on %s (--kafka-listen, make KAFKA_ADDR=ADDR): %w", listen, err)
	}
	addrs := c.ListenAddrs()
	if len(addrs) == 0 {
		c.Close()
		return nil, fmt.Errorf("cannot start embedded Kafka broker: no listener")
	}
	return &Embedded{cluster: c, addr: addrs[0]}, nil
}

// Addr returns the broker's host:port.
func (e *Embedded) Addr() string { return e.addr }

// Close stops the broker and flushes its persisted state.
func (e *Embedded) Close() { e.cluster.Close() }

// kfakeLogger forwards the broker's warnings and errors to slog.
type kfakeLogger struct{ l *slog.Logger }

func (k kfakeLogger) Logf(level kfake.LogLevel, msg string, args ...any) {
	switch level {
	case kfake.LogLevelError:
		k.l.Error("kafka broker: " + fmt.Sprintf(msg, args...))
	case kfake.LogLevelWarn:
		// kfake warns about ordinary events (a slow EndTxn on a busy
		// machine, a client disconnect); keep them for debugging only. A
		// write to its logs that failed is no ordinary event: the clients
		// only see UNKNOWN_SERVER_ERROR, so say what the disk said.
		if strings.HasPrefix(msg, "persist") {
			k.l.Error("kafka broker cannot write its log: " + fmt.Sprintf(msg, args...))
			return
		}
		k.l.Debug("kafka broker: " + fmt.Sprintf(msg, args...))
	}
}

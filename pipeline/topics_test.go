package pipeline

import (
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

func TestTopicConfig(t *testing.T) {
	f := func(spec TopicSpec, replicas int, want map[string]string) {
		t.Helper()
		got := TopicConfig(spec, replicas)
		if len(got) != len(want) {
			t.Errorf("%s on %d replicas: %d settings, want %d: %v", spec.Name, replicas, len(got), len(want), got)
		}
		for k, v := range want {
			if got[k] == nil || *got[k] != v {
				t.Errorf("%s on %d replicas: %s = %v, want %s", spec.Name, replicas, k, got[k], v)
			}
		}
	}
	byName := map[string]TopicSpec{}
	for _, s := range Topics {
		byName[s.Name] = s
	}
	f(byName[schemas.TopicTrades], 3, map[string]string{"min.insync.replicas": "2", "cleanup.policy": "delete", "retention.ms": "604800000"})
	f(byName[schemas.TopicTrades], 1, map[string]string{"min.insync.replicas": "1", "cleanup.policy": "delete", "retention.ms": "604800000"})
	f(byName[schemas.TopicTradesDLQ], 3, map[string]string{"min.insync.replicas": "2", "cleanup.policy": "delete", "retention.ms": "1209600000"})
	f(byName[schemas.TopicSignals], 3, map[string]string{"min.insync.replicas": "2", "cleanup.policy": "compact", "segment.ms": "3600000"})
	f(byName[schemas.TopicState], 3, map[string]string{"min.insync.replicas": "2", "cleanup.policy": "compact", "segment.ms": "3600000", "max.message.bytes": "67108864"})
	f(byName[schemas.TopicSourceOffsets], 2, map[string]string{"min.insync.replicas": "2", "cleanup.policy": "compact", "segment.ms": "3600000"})
	f(TopicSpec{Name: "mi.side.v1", Partitioned: true}, 3, map[string]string{"min.insync.replicas": "2", "cleanup.policy": "delete", "retention.ms": "-1"})
	f(TopicSpec{Name: "mi.side.v1", Partitioned: true, Retention: 48 * time.Hour}, 3, map[string]string{"min.insync.replicas": "2", "cleanup.policy": "delete", "retention.ms": "172800000"})
}

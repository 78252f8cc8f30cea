package e2e

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPortInUseNamesTheFlag starts mi with the API port, then the broker
// port, already taken: it exits non-zero and says which flag (and make
// variable) moves the listener.
func TestPortInUseNamesTheFlag(t *testing.T) {
	bin := miBinary(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	busy := taken.Addr().String()
	free := func() string { return "127.0.0.1:" + strconv.Itoa(freePort(t)) }
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--http-addr", busy, "--kafka-listen", free()}, []string{busy, "already in use", "--http-addr", "HTTP_ADDR"}},
		{[]string{"--http-addr", free(), "--kafka-listen", busy}, []string{busy, "already in use", "--kafka-listen", "KAFKA_ADDR"}},
	} {
		code, out := runMi(t, time.Minute, nil, bin, append([]string{"run", "--data-dir", t.TempDir(), "--source", "sim"}, c.args...)...)
		last := out[strings.LastIndex(strings.TrimRight(out, "\n"), "\n")+1:]
		if code == 0 {
			t.Fatalf("mi %v exited 0:\n%s", c.args, out)
		}
		for _, w := range c.want {
			if !strings.Contains(last, w) {
				t.Fatalf("mi %v: the error does not say %q:\n%s", c.args, w, out)
			}
		}
	}
}

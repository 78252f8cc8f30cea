package alerts

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
)

func TestSafetyCheckIP(t *testing.T) {
	var s Safety
	f := func(ip string, ok bool) {
		t.Helper()
		err := s.CheckIP(netip.MustParseAddr(ip))
		if (err == nil) != ok {
			t.Fatalf("CheckIP(%s) = %v, want allowed=%v", ip, err, ok)
		}
		if err != nil && !errors.Is(err, ErrUnsafeTarget) {
			t.Fatalf("CheckIP(%s) error %v is not ErrUnsafeTarget", ip, err)
		}
	}
	// Blocked: loopback, private, link-local, CGNAT, metadata, unspecified, multicast, reserved.
	for _, ip := range []string{
		"127.0.0.1", "127.8.9.10", "::1",
		"10.0.0.1", "172.16.5.4", "192.168.1.1", "fc00::1", "fd12:3456::1",
		"169.254.1.1", "fe80::1",
		"100.64.0.1", "100.127.255.254",
		"169.254.169.254", "fd00:ec2::254",
		"0.0.0.0", "::", "0.1.2.3",
		"224.0.0.1", "239.255.255.250", "ff02::1", "ff05::2",
		"255.255.255.255", "240.0.0.1", "192.0.2.5", "198.18.0.1", "2001:db8::1",
		"::ffff:127.0.0.1", "::ffff:10.1.1.1", "::ffff:169.254.169.254",
		"2002:7f00:0001::1", // 6to4 of 127.0.0.1
		"2002:a9fe:a9fe::1", // 6to4 of 169.254.169.254
	} {
		f(ip, false)
	}
	// Public.
	for _, ip := range []string{"1.1.1.1", "8.8.8.8", "100.63.255.255", "100.128.0.0", "2606:4700:4700::1111", "2002:0808:0808::1"} {
		f(ip, true)
	}
	// The test-only setting admits loopback and nothing else.
	s.AllowLoopback = true
	f("127.0.0.1", true)
	f("::1", true)
	f("10.0.0.1", false)
	f("169.254.169.254", false)
}

func TestSafetyCheckURL(t *testing.T) {
	ctx := context.Background()
	s := Safety{Lookup: func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "public.example":
			return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
		case "mixed.example":
			return []netip.Addr{netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("10.0.0.7")}, nil
		case "metadata.example":
			return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
		}
		return nil, errors.New("no such host")
	}}
	f := func(u string, ok bool) {
		t.Helper()
		err := s.CheckURL(ctx, u)
		if (err == nil) != ok {
			t.Fatalf("CheckURL(%q) = %v, want allowed=%v", u, err, ok)
		}
	}
	f("https://public.example/hook", true)
	f("https://93.184.215.14:8443/x", true)
	f("http://public.example/hook", false)      // not https
	f("ftp://public.example/", false)           // not https
	f("https://user:pw@public.example/", false) // user info
	f("https:///nohost", false)
	f("https://mixed.example/", false) // one private answer is enough to refuse
	f("https://metadata.example/", false)
	f("https://unknown.example/", false)
	f("https://localhost/", false)
	f("https://127.0.0.1/", false)
	f("https://[::1]/", false)
	f("https://169.254.169.254/latest/meta-data", false)
	f("https://[fd00:ec2::254]/", false)
	f("https://100.100.100.200/", false)
	f("https://[::]/", false)
	f("https://0.0.0.0/", false)
	f("https://224.0.0.1/", false)
	f("https://"+strings.Repeat("a", 2100)+".example/", false)
	f("::not a url", false)
}

// TestSafetyDialRebinding proves the connect-time check: a name that was
// public when the subscription was checked but resolves to loopback when
// the dispatcher connects is refused, and the receiver is never reached.
func TestSafetyDialRebinding(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	var calls atomic.Int32
	s := Safety{Lookup: func(_ context.Context, host string) ([]netip.Addr, error) {
		if calls.Add(1) == 1 {
			return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}}
	u := "https://rebind.example:" + port + "/hook"
	if err := s.CheckURL(context.Background(), u); err != nil {
		t.Fatalf("first resolution should pass: %v", err)
	}
	d := NewDispatcher(nil, DispatcherConfig{Safety: s, TLS: tlsFor(srv)})
	req, _ := http.NewRequest(http.MethodPost, u, nil)
	_, err := d.client.Do(req)
	if err == nil || !errors.Is(err, ErrUnsafeTarget) {
		t.Fatalf("rebinding dial = %v, want ErrUnsafeTarget", err)
	}
	// Each blocked literal target is refused at connect time too.
	for _, host := range []string{"127.0.0.1", "[::1]", "10.0.0.1", "169.254.169.254", "100.64.0.1", "[fd00:ec2::254]", "0.0.0.0", "224.0.0.1"} {
		req, _ := http.NewRequest(http.MethodPost, "https://"+host+":"+port+"/", nil)
		if _, err := d.client.Do(req); !errors.Is(err, ErrUnsafeTarget) {
			t.Fatalf("dial %s = %v, want ErrUnsafeTarget", host, err)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("receiver reached %d times", hits.Load())
	}
	// The dialer's Control hook refuses what it connects to even when
	// resolution was bypassed.
	if _, err := (Safety{}).DialContext(context.Background(), "tcp", "127.0.0.1:"+port); !errors.Is(err, ErrUnsafeTarget) {
		t.Fatalf("dial loopback = %v", err)
	}
}

// TestDispatcherNoRedirectsBoundedBody: a 302 is a failed attempt and its
// target is never fetched; a huge answer is read only up to the limit.
func TestDispatcherNoRedirectsBoundedBody(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	st := openStore(t, openSQLite(t), DialectSQLite, c)
	var target atomic.Int32
	var mux http.ServeMux
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/target", http.StatusFound)
	})
	mux.HandleFunc("/target", func(http.ResponseWriter, *http.Request) { target.Add(1) })
	mux.HandleFunc("/huge", func(w http.ResponseWriter, _ *http.Request) {
		chunk := []byte(strings.Repeat("x", 64<<10))
		for range 1024 { // 64 MB unless the client stops reading
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	srv := httptest.NewTLSServer(&mux)
	defer srv.Close()
	d := testDispatcher(st, srv, DispatcherConfig{})
	red, _, _ := st.Create(ctx, NewSubscription{URL: srv.URL + "/redirect", Events: []string{"unusual_flow"}})
	res, err := d.SendTest(ctx, red)
	if err != nil || res.Delivered || res.Status != http.StatusFound {
		t.Fatalf("redirect: %+v, %v", res, err)
	}
	if target.Load() != 0 {
		t.Fatal("redirect followed")
	}
	huge, _, _ := st.Create(ctx, NewSubscription{URL: srv.URL + "/huge", Events: []string{"unusual_flow"}})
	res, err = d.SendTest(ctx, huge)
	if err != nil || !res.Delivered {
		t.Fatalf("huge answer: %+v, %v", res, err)
	}
	// Without the test-only setting the loopback receiver is refused.
	strict := NewDispatcher(st, DispatcherConfig{TLS: tlsFor(srv)})
	res, err = strict.SendTest(ctx, huge)
	if err != nil || res.Delivered || !strings.Contains(res.Error, "loopback") {
		t.Fatalf("strict dispatcher: %+v, %v", res, err)
	}
}

package alerts

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// ianaIPv4 is the IANA IPv4 Special-Purpose Address Registry
// (iana.org/assignments/iana-ipv4-special-registry, as of 2025), every
// entry, transcribed here independently of the code's table, plus
// multicast (RFC 5771).
var ianaIPv4 = []string{
	"0.0.0.0/8", "0.0.0.0/32", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
	"192.0.0.0/24", "192.0.0.0/29", "192.0.0.8/32", "192.0.0.9/32", "192.0.0.10/32", "192.0.0.170/32", "192.0.0.171/32",
	"192.0.2.0/24", "192.31.196.0/24", "192.52.193.0/24", "192.88.99.0/24", "192.168.0.0/16", "192.175.48.0/24",
	"198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32",
	"224.0.0.0/4",
}

// ianaIPv6 is the IANA IPv6 Special-Purpose Address Registry
// (iana.org/assignments/iana-ipv6-special-registry, as of 2025), every
// entry except the IPv4-embedding ones (tested with each IPv4 block
// below), plus the non-global space: multicast, site-local, and the
// reserved ranges outside 2000::/3.
var ianaIPv6 = []string{
	"::1/128", "::/128", "64:ff9b:1::/48", "100::/64", "100:0:0:1::/64",
	"2001::/23", "2001::/32", "2001:1::1/128", "2001:1::2/128", "2001:1::3/128", "2001:2::/48", "2001:3::/32",
	"2001:4:112::/48", "2001:10::/28", "2001:20::/28", "2001:30::/28", "2001:db8::/32", "2620:4f:8000::/48",
	"3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10",
	"fec0::/10", "ff00::/8", "4000::/2", "1000::/4", "8000::/1",
}

// addrsOf returns the first, a middle and the last address of p.
func addrsOf(p netip.Prefix) []netip.Addr {
	first := p.Masked().Addr()
	b := first.AsSlice()
	last := make([]byte, len(b))
	mid := make([]byte, len(b))
	copy(last, b)
	copy(mid, b)
	for i := p.Bits(); i < len(b)*8; i++ {
		last[i/8] |= 1 << (7 - i%8)
		if i > p.Bits() {
			mid[i/8] |= 1 << (7 - i%8) // 0111…1
		}
	}
	l, _ := netip.AddrFromSlice(last)
	m, _ := netip.AddrFromSlice(mid)
	return []netip.Addr{first, m, l}
}

// TestSafetyCheckIP checks every special-purpose block of both IANA
// registries (first, middle and last address), every IPv4 block again in
// each IPv6 form that embeds an IPv4 address (mapped ::ffff:0:0/96,
// translated ::ffff:0:0:0/96, compatible ::/96, NAT64 64:ff9b::/96, 6to4
// 2002::/16), and public addresses in all of those forms.
func TestSafetyCheckIP(t *testing.T) {
	f := func(s Safety, ip netip.Addr, ok bool) {
		t.Helper()
		err := s.CheckIP(ip)
		if (err == nil) != ok {
			t.Fatalf("CheckIP(%s) = %v, want allowed=%v", ip, err, ok)
		}
		if err != nil && !errors.Is(err, ErrUnsafeTarget) {
			t.Fatalf("CheckIP(%s) error %v is not ErrUnsafeTarget", ip, err)
		}
	}
	embed := func(v4 netip.Addr) []netip.Addr {
		b := v4.As4()
		var out []netip.Addr
		for _, pre := range [][]byte{
			{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff},    // ::ffff:a.b.c.d (mapped)
			{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0},    // ::ffff:0:a.b.c.d (translated)
			{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},          // ::a.b.c.d (compatible)
			{0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0}, // 64:ff9b::a.b.c.d (NAT64)
		} {
			out = append(out, netip.AddrFrom16([16]byte(append(append([]byte{}, pre...), b[:]...))))
		}
		// 2002:AABB:CCDD::1 (6to4)
		out = append(out, netip.AddrFrom16([16]byte{0x20, 0x02, b[0], b[1], b[2], b[3], 15: 1}))
		return out
	}
	var strict, dev Safety
	dev.AllowLoopback = true
	for _, p := range ianaIPv4 {
		for _, ip := range addrsOf(netip.MustParsePrefix(p)) {
			if ip == netip.MustParseAddr("0.0.0.0") || ip == netip.MustParseAddr("0.0.0.1") {
				// ::0.0.0.0 and ::0.0.0.1 are :: and ::1, tested below.
				f(strict, ip, false)
				continue
			}
			f(strict, ip, false)
			for _, e := range embed(ip) {
				f(strict, e, false)
			}
		}
	}
	for _, p := range ianaIPv6 {
		for _, ip := range addrsOf(netip.MustParsePrefix(p)) {
			f(strict, ip, false)
		}
	}
	// Public addresses, in every form, and right next to the blocks.
	for _, v4 := range []string{"1.1.1.1", "8.8.8.8", "93.184.215.14", "100.63.255.255", "100.128.0.0", "172.32.0.0", "192.0.1.255", "198.20.0.0", "223.255.255.255"} {
		ip := netip.MustParseAddr(v4)
		f(strict, ip, true)
		for _, e := range embed(ip) {
			f(strict, e, true)
		}
	}
	for _, v6 := range []string{"2606:4700:4700::1111", "2a00:1450:4001::200e", "2001:200::1", "2001:4860:4860::8888", "3fff:1000::1", "2620:4f:8001::1"} {
		f(strict, netip.MustParseAddr(v6), true)
	}
	// The zone of a link-local address changes nothing.
	f(strict, netip.MustParseAddr("fe80::1%eth0"), false)
	f(strict, netip.Addr{}, false)

	// The development setting admits loopback — 127.0.0.0/8, ::1 and the
	// IPv4-mapped form of 127/8, which reaches this host's own stack — and
	// nothing else: loopback behind a translator, a NAT64 gateway or 6to4
	// is still refused, and so is every other block.
	for _, ip := range []string{"127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"} {
		f(dev, netip.MustParseAddr(ip), true)
	}
	for _, ip := range []string{"::127.0.0.1", "::ffff:0:7f00:1", "64:ff9b::7f00:1", "2002:7f00:1::1", "10.0.0.1", "169.254.169.254", "::", "0.0.0.0", "fe80::1"} {
		f(dev, netip.MustParseAddr(ip), false)
	}
}

// TestSafetyProbeURLs checks the five URLs a probe of the running service
// got accepted (201) with an embedded forbidden IPv4 address, at
// subscription (CheckURL) and at connect (DialContext and the dispatcher's
// client), with the error naming the embedded address.
func TestSafetyProbeURLs(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer srv.Close()
	d := NewDispatcher(nil, DispatcherConfig{TLS: tlsFor(srv)})
	for _, c := range []struct{ url, embedded string }{
		{"https://[::127.0.0.1]/", "127.0.0.1"},
		{"https://[::ffff:0:7f00:1]/", "127.0.0.1"},
		{"https://[64:ff9b::7f00:1]/", "127.0.0.1"},
		{"https://[64:ff9b::a9fe:a9fe]/latest", "169.254.169.254"},
		{"https://[64:ff9b::10.0.0.1]/", "10.0.0.1"},
	} {
		err := (Safety{}).CheckURL(context.Background(), c.url)
		if !errors.Is(err, ErrUnsafeTarget) || !strings.Contains(err.Error(), c.embedded) {
			t.Fatalf("CheckURL(%s) = %v, want ErrUnsafeTarget naming %s", c.url, err, c.embedded)
		}
		u, _ := url.Parse(c.url)
		if _, err := (Safety{}).DialContext(context.Background(), "tcp", net.JoinHostPort(u.Hostname(), "443")); !errors.Is(err, ErrUnsafeTarget) {
			t.Fatalf("DialContext(%s) = %v, want ErrUnsafeTarget", c.url, err)
		}
		req, _ := http.NewRequest(http.MethodPost, c.url, nil)
		if _, err := d.client.Do(req); !errors.Is(err, ErrUnsafeTarget) {
			t.Fatalf("dispatcher POST %s = %v, want ErrUnsafeTarget", c.url, err)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("receiver reached %d times", hits.Load())
	}
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

package traffic

import (
	"context"
	"net"
	"net/netip"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
)

// TestDialSkipsAPortAnotherSocketHolds binds the cycle's next port in the
// client namespace first: the dial moves on to the port after it.
func TestDialSkipsAPortAnotherSocketHolds(t *testing.T) {
	f := labtest.NewVethPair(t)
	target := netip.AddrPortFrom(labtest.ServerIP, 8080)
	var server, holder net.Listener
	if err := netns.Do(f.Server, func() (err error) {
		server, err = net.Listen("tcp4", target.String())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	nextSourcePort.Store(LastSourcePort - FirstSourcePort) // the cycle's last port, then its first
	if err := netns.Do(f.Client, func() (err error) {
		holder, err = net.Listen("tcp4", netip.AddrPortFrom(labtest.ClientIP, LastSourcePort).String())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	var c net.Conn
	err := netns.Do(f.Client, func() (err error) {
		c, err = dialFromNextPort(context.Background(), &net.Dialer{}, labtest.ClientIP.AsSlice(), target.String())
		return err
	})
	if err != nil {
		t.Fatalf("dial with the next port held: %v", err)
	}
	defer c.Close()
	if got := c.LocalAddr().(*net.TCPAddr).Port; got != FirstSourcePort {
		t.Fatalf("dialled from port %d, want %d (the held %d skipped, the cycle wrapped)", got, FirstSourcePort, LastSourcePort)
	}
}

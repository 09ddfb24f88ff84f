// Command guestsmoke is the user-mode-linux smoke test's guest program. Like
// svclab, it is its own guest init (`guestsmoke __guest-init CONFIG`);
// otherwise it creates one IPVS virtual server with one real server over
// generic netlink, lists them back and prints OK.
package main

import (
	"fmt"
	"net/netip"
	"os"

	"github.com/cloudflare/ipvs"
	"github.com/cloudflare/ipvs/netmask"
	"github.com/vishvananda/netlink"

	"github.com/svclab/svclab/lab/uml"
)

var (
	vip     = netip.MustParseAddr("10.96.0.10")
	backend = netip.MustParseAddr("10.244.0.2")
)

func main() {
	uml.InitIfGuest(os.Args[1:])
	if err := smoke(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("OK")
}

func smoke() error {
	if err := addBackendRoute(); err != nil {
		return err
	}
	c, err := ipvs.New()
	if err != nil {
		return fmt.Errorf("ipvs.New: %w", err)
	}
	info, err := c.Info()
	if err != nil {
		return fmt.Errorf("ipvs info: %w", err)
	}
	fmt.Printf("ipvs version %d.%d.%d\n", info.Version[0], info.Version[1], info.Version[2])
	svc := ipvs.Service{Address: vip, Port: 80, Family: ipvs.INET, Protocol: ipvs.TCP, Scheduler: "rr", Netmask: netmask.MaskFrom(32, 32)}
	if err := c.CreateService(svc); err != nil {
		return fmt.Errorf("create service: %w", err)
	}
	dst := ipvs.Destination{Address: backend, Port: 8080, Family: ipvs.INET, FwdMethod: ipvs.Masquerade, Weight: 1}
	if err := c.CreateDestination(svc, dst); err != nil {
		return fmt.Errorf("create destination: %w", err)
	}
	return listBack(c, svc)
}

// listBack checks the kernel's table holds exactly what was created.
func listBack(c ipvs.Client, svc ipvs.Service) error {
	services, err := c.Services()
	if err != nil {
		return fmt.Errorf("list services: %w", err)
	}
	if len(services) != 1 || services[0].Address != vip || services[0].Scheduler != "rr" {
		return fmt.Errorf("services = %+v, want one rr service on %s", services, vip)
	}
	dests, err := c.Destinations(svc)
	if err != nil {
		return fmt.Errorf("list destinations: %w", err)
	}
	if len(dests) != 1 || dests[0].Address != backend || dests[0].Port != 8080 {
		return fmt.Errorf("destinations = %+v, want %s:8080", dests, backend)
	}
	fmt.Printf("service %s:%d -> %s:%d\n", vip, svc.Port, backend, dests[0].Port)
	return nil
}

// addBackendRoute gives the guest a route to the real server (IPVS
// refuses a destination it cannot reach): a dummy link owning 10.244/16.
func addBackendRoute() error {
	link := &netlink.Dummy{LinkAttrs: netlink.LinkAttrs{Name: "smoke0"}}
	if err := netlink.LinkAdd(link); err != nil {
		return fmt.Errorf("add dummy link: %w", err)
	}
	addr, _ := netlink.ParseAddr("10.244.0.1/16")
	if err := netlink.AddrAdd(link, addr); err != nil {
		return fmt.Errorf("address dummy link: %w", err)
	}
	return netlink.LinkSetUp(link)
}

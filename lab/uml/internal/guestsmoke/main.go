// Command guestsmoke is the user-mode-linux smoke test's guest program. Like
// svclab, it is its own guest init (`guestsmoke __guest-init CONFIG`);
// otherwise it creates one IPVS virtual server with one real server over
// generic netlink, lists them back, checks that the kernel memory of 2,000
// addresses is charged to the program's memory cgroup (the guest's
// cgroup2 group, as on a cgroup v2-only node), and prints OK.
package main

import (
	"fmt"
	"net/netip"
	"os"

	"github.com/cloudflare/ipvs"
	"github.com/cloudflare/ipvs/netmask"
	"github.com/vishvananda/netlink"

	"github.com/svclab/svclab/lab/procstat"
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
	if err := listBack(c, svc); err != nil {
		return err
	}
	return chargeMemory()
}

// chargedAddresses is how many addresses chargeMemory adds: well over
// 100 kB of kernel memory.
const chargedAddresses = 2000

// chargeMemory adds addresses to the dummy link and checks that their
// kernel memory is charged to the program's own cgroup2 group and agrees
// with the machine's growth (procstat's Growth).
func chargeMemory() error {
	dir, err := procstat.WatchOwnMemoryCgroup()
	if err != nil {
		return fmt.Errorf("watch the program's memory cgroup: %w", err)
	}
	defer procstat.LeaveMemoryCgroup()
	before, err := procstat.ReadKernelMemory()
	if err != nil {
		return err
	}
	link, err := netlink.LinkByName("smoke0")
	if err != nil {
		return err
	}
	for i := range chargedAddresses {
		addr, _ := netlink.ParseAddr(fmt.Sprintf("10.245.%d.%d/32", i/250, i%250+1))
		if err := netlink.AddrAdd(link, addr); err != nil {
			return fmt.Errorf("add address %s: %w", addr, err)
		}
	}
	after, err := procstat.ReadKernelMemory()
	if err != nil {
		return err
	}
	machine, err := before.Growth(after)
	if err != nil {
		return err
	}
	own := after.Own - before.Own
	if !after.HasOwn || own < 100_000 {
		return fmt.Errorf("%d addresses charged %d bytes to cgroup %s (own reading: %v); want over 100 kB", chargedAddresses, own, dir, after.HasOwn)
	}
	fmt.Printf("kernel memory of %d addresses: machine %+d bytes, cgroup %s %+d bytes\n", chargedAddresses, machine, dir, own)
	return nil
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
